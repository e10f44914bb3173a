// The bare HTTP limit: node:http, JSON.parse, hand-built answers for exactly the messages the
// benchmark sends. Stateful mode keeps a session map (id header, 404 for unknown ids) and holds
// the POST's SSE stream open while a sampling request is out; stateless mode has no sessions.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';

export function startBareHttp({ stateless }) {
  const sessions = new Map(); // session id -> Map(sampling id -> held SSE response + call id)
  let nextSamplingId = 0;

  // Content-Length and one `end(body)`, as Keel's node:http path answers: headers and body leave
  // in one write, without chunked framing (`writeHead` without a length would pick chunked).
  const json = (res, status, body, headers = {}) => {
    const length = Buffer.byteLength(body);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': length, ...headers });
    res.end(body);
  };
  const textResult = (id, text) =>
    `{"jsonrpc":"2.0","id":${id},"result":{"content":[{"type":"text","text":${JSON.stringify(text)}}]}}`;

  const onMessage = (req, res, message) => {
    const id = JSON.stringify(message.id);
    if (message.method === 'initialize') {
      const headers = {};
      if (!stateless) {
        const sessionId = randomUUID();
        sessions.set(sessionId, new Map());
        headers['mcp-session-id'] = sessionId;
      }
      const version = JSON.stringify(message.params.protocolVersion);
      json(
        res,
        200,
        `{"jsonrpc":"2.0","id":${id},"result":{"protocolVersion":${version},"capabilities":{"tools":{}},"serverInfo":{"name":"bare","version":"1.0.0"}}}`,
        headers,
      );
      return;
    }
    let waiting;
    if (!stateless) {
      waiting = sessions.get(req.headers['mcp-session-id']);
      if (!waiting)
        return json(
          res,
          404,
          '{"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"Session not found"}}',
        );
    }
    if (message.method === undefined) {
      // The client's answer to a sampling request: finish the held stream of the tool call.
      const held = waiting?.get(message.id);
      res.writeHead(202).end();
      if (!held) return;
      waiting.delete(message.id);
      held.res.end(`event: message\ndata: ${textResult(held.id, message.result.content.text)}\n\n`);
      return;
    }
    if (message.id === undefined) return void res.writeHead(202).end();
    if (message.method === 'tools/call') {
      const { name, arguments: args } = message.params;
      if (name === 'echo') return json(res, 200, textResult(id, args.text));
      if (name === 'wait_sampling' && waiting) {
        const samplingId = `s${nextSamplingId++}`;
        waiting.set(samplingId, { res, id });
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        res.write(
          `event: message\ndata: {"jsonrpc":"2.0","id":"${samplingId}","method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":${JSON.stringify(args.prompt)}}}],"maxTokens":64}}\n\n`,
        );
        return;
      }
    }
    json(res, 200, `{"jsonrpc":"2.0","id":${id},"error":{"code":-32601,"message":"Method not found"}}`);
  };

  const server = createServer((req, res) => {
    if (req.method === 'DELETE') {
      sessions.delete(req.headers['mcp-session-id']);
      return void res.writeHead(200).end();
    }
    if (req.method !== 'POST') return void res.writeHead(405).end();
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => onMessage(req, res, JSON.parse(body)));
  });
  server.listen(Number(process.env.PORT ?? 3000), '127.0.0.1');
  const stop = () => server.close(() => process.exit(0)) && server.closeAllConnections();
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  return server;
}
