// The bare HTTP limit for the 2026-07-28 era: node:http, JSON.parse, hand-built answers for
// exactly the requests the benchmark sends, no session and no validation. Written like
// http.mjs (Content-Length and one `end(body)` per answer, as Keel's node:http path writes).
// `wait_sampling` answers `input_required` with a requestState signed with HMAC-SHA-256 over
// the tool and its prompt, and checks it on the retry: the least a server must do with a state
// the client hands back (Keel signs its states too).
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';

const key = randomBytes(32);
const sign = (prompt) => createHmac('sha256', key).update(`wait_sampling\n${prompt}`).digest('base64url');

const json = (res, status, body) => {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
};
const complete = (id, text) =>
  `{"jsonrpc":"2.0","id":${id},"result":{"content":[{"type":"text","text":${JSON.stringify(text)}}],"resultType":"complete"}}`;
const error = (id, code, message) =>
  `{"jsonrpc":"2.0","id":${id},"error":{"code":${code},"message":${JSON.stringify(message)}}}`;

function answer(message) {
  const id = JSON.stringify(message.id ?? null);
  if (message.method !== 'tools/call') return [404, error(id, -32601, 'Method not found')];
  const { name, arguments: args, inputResponses, requestState } = message.params;
  if (name === 'echo') return [200, complete(id, args.text)];
  if (name !== 'wait_sampling') return [400, error(id, -32602, 'Unknown tool')];
  const prompt = String(args.prompt);
  const sampled = inputResponses?.sample;
  if (sampled === undefined) {
    const ask = `{"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":${JSON.stringify(prompt)}}}],"maxTokens":64}}`;
    return [
      200,
      `{"jsonrpc":"2.0","id":${id},"result":{"resultType":"input_required","inputRequests":{"sample":${ask}},"requestState":"${sign(prompt)}"}}`,
    ];
  }
  const expected = Buffer.from(sign(prompt));
  const given = Buffer.from(String(requestState ?? ''));
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return [400, error(id, -32602, 'Invalid requestState')];
  }
  return [200, complete(id, sampled.content.text)];
}

const server = createServer((req, res) => {
  if (req.method !== 'POST') return void res.writeHead(405, { allow: 'POST' }).end();
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (chunk) => (body += chunk));
  req.on('end', () => {
    const message = JSON.parse(body);
    if (message.id === undefined) return void res.writeHead(202).end();
    const [status, text] = answer(message);
    json(res, status, text);
  });
});
server.listen(Number(process.env.PORT ?? 3000), '127.0.0.1');
const stop = () => server.close(() => process.exit(0)) && server.closeAllConnections();
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
