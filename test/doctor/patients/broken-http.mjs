// A plain node:http Streamable HTTP "MCP server" (no SDK) for the doctor tests, on 127.0.0.1 and
// $PORT (0 = any); prints its URL (…/mcp) on stdout once listening. With no flag it behaves:
// doctor's http checks pass. Each flag in BROKEN (env, comma-separated) or `--break a,b` turns on
// one misbehaviour:
//   delete-hang       DELETE answers 200 but the running call keeps going and its stream never ends
//   no-origin         a foreign Origin is served (no DNS-rebinding protection)
//   no-host           a foreign Host is served
//   malformed-500     a body that is not JSON gets 500 (an unhandled parse error)
//   malformed-crash   a body that is not JSON crashes the process
//   no-body-limit     any body size is read and parsed (no 413)
//   leak-sessions     DELETE does not free the session (each holds 1 MiB), no cap on sessions
//   no-resume         SSE events carry no id, GET with Last-Event-ID is refused (405)
//   nested-no-cancel  cancelling a call that waits on sampling leaves the sampling request open
//   drop-ends-session a client dropping a call's stream ends its whole session (404 after)
//   resume-no-answer  a resumed stream replays the events but never brings the call's answer
//   leak-memory       DELETE ends the session (404 after) but keeps 1 MiB of it for ever
//   trust-state       2026-07-28: a requestState is read without checking its signature
//   any-version       2026-07-28: a request naming a version it does not speak is served
// Tools: fast, slow (3 s on an SSE stream, progress when asked), ask (sampling/createMessage; in
// 2026-07-28 an input_required result with a signed requestState).
import { createServer } from 'node:http';
import { createHmac, randomBytes, randomUUID } from 'node:crypto';

const flagArg = process.argv.indexOf('--break');
const BROKEN = new Set(
  [process.env.BROKEN ?? '', flagArg >= 0 ? (process.argv[flagArg + 1] ?? '') : '']
    .join(',')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
);
const broken = (mode) => BROKEN.has(mode);
const BODY_LIMIT = 1024 * 1024;
const MAX_SESSIONS = 200;
const SLOW_MS = 3000;
const TOOLS = [
  { name: 'fast', description: 'Answers at once', inputSchema: { type: 'object' } },
  { name: 'slow', description: 'Runs for 3 seconds (reports progress)', inputSchema: { type: 'object' } },
  { name: 'ask', description: 'Asks the client to sample a message', inputSchema: { type: 'object' } },
];

/** session id -> { calls: Map<reqKey, call>, streams: Map<streamId, stream>, waiting: Map<outId, fn>, ballast } */
const sessions = new Map();
/** What `leak-memory` keeps of the sessions it deleted. */
const kept = [];
let nextStream = 1;
let nextOut = 1;

const text = (t) => ({ content: [{ type: 'text', text: t }] });
const jsonError = (id, code, message) => ({ jsonrpc: '2.0', id, error: { code, message } });

function sendJson(res, status, body, headers = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** An SSE stream for one POST; remembers its events so a GET with Last-Event-ID can replay them. */
function openStream(session, res) {
  const stream = { id: nextStream++, events: [], res, ended: false };
  session.streams.set(String(stream.id), stream);
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.flushHeaders();
  res.on('close', () => {
    if (stream.res === res) stream.res = null; // the client went away: keep running, stop writing
    if (!stream.ended && broken('drop-ends-session'))
      for (const [sid, s] of sessions) if (s === session) sessions.delete(sid);
  });
  return stream;
}
function emit(stream, message, end = false) {
  stream.events.push(message);
  const n = stream.events.length;
  const idLine = broken('no-resume') ? '' : `id: ${stream.id}:${n}\n`;
  stream.res?.write(`${idLine}data: ${JSON.stringify(message)}\n\n`);
  if (end) {
    stream.ended = true;
    stream.res?.end();
  }
}

function callTool(session, id, params, res) {
  const name = params?.name;
  if (name === 'fast') return sendJson(res, 200, { jsonrpc: '2.0', id, result: text('fast done') });
  const key = JSON.stringify(id);
  const stream = openStream(session, res);
  const call = { stream, timers: [], nested: null, orphaned: false };
  session.calls.set(key, call);
  if (name === 'slow') {
    const token = params?._meta?.progressToken;
    if (token !== undefined) {
      call.timers.push(
        setTimeout(
          () =>
            emit(stream, {
              jsonrpc: '2.0',
              method: 'notifications/progress',
              params: { progressToken: token, progress: 1, total: 2 },
            }),
          SLOW_MS / 2,
        ),
      );
    }
    call.timers.push(
      setTimeout(() => {
        session.calls.delete(key);
        // delete-hang: the handler ran on, but its session is gone, so the answer has nowhere to go
        if (call.orphaned) return;
        emit(stream, { jsonrpc: '2.0', id, result: text('slow done') }, true);
      }, SLOW_MS),
    );
    return;
  }
  if (name === 'ask') {
    const outId = `s${nextOut++}`;
    call.nested = outId;
    session.waiting.set(outId, (answer) => {
      if (session.calls.get(key) !== call) return;
      session.calls.delete(key);
      const said = answer?.result?.content?.text ?? JSON.stringify(answer?.error ?? null);
      emit(stream, { jsonrpc: '2.0', id, result: text(`the client said: ${said}`) }, true);
    });
    emit(stream, {
      jsonrpc: '2.0',
      id: outId,
      method: 'sampling/createMessage',
      params: { messages: [{ role: 'user', content: { type: 'text', text: 'Say hi' } }], maxTokens: 20 },
    });
    return;
  }
  session.calls.delete(key);
  emit(stream, jsonError(id, -32602, `Unknown tool: ${name}`), true);
}

function stopCall(session, key, why) {
  const call = session.calls.get(key);
  if (!call) return;
  session.calls.delete(key);
  for (const t of call.timers) clearTimeout(t);
  if (call.nested) {
    session.waiting.delete(call.nested);
    if (!broken('nested-no-cancel')) {
      emit(call.stream, {
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: call.nested, reason: why },
      });
    } else {
      return; // the nested request stays open and so does the stream it went out on
    }
  }
  call.stream.ended = true;
  call.stream.res?.end();
}

function onMessage(req, res, message) {
  if (Array.isArray(message) || message === null || typeof message !== 'object') {
    return sendJson(res, 400, jsonError(null, -32600, 'Expected one JSON-RPC message'));
  }
  const { id, method, params } = message;
  if (method === 'initialize') {
    if (sessions.size >= MAX_SESSIONS && !broken('leak-sessions')) {
      return sendJson(res, 503, jsonError(id, -32000, 'Too many sessions'), { 'retry-after': '1' });
    }
    const sid = randomUUID();
    sessions.set(sid, {
      calls: new Map(),
      streams: new Map(),
      waiting: new Map(),
      ballast: broken('leak-sessions') ? Buffer.alloc(BODY_LIMIT, 1) : null,
    });
    return sendJson(
      res,
      200,
      {
        jsonrpc: '2.0',
        id,
        result: {
          protocolVersion: params?.protocolVersion ?? '2025-11-25',
          capabilities: { tools: {} },
          serverInfo: { name: 'broken-http', version: '0.0.1' },
        },
      },
      { 'mcp-session-id': sid },
    );
  }
  const version = params?._meta?.['io.modelcontextprotocol/protocolVersion'];
  if (req.headers['mcp-session-id'] === undefined && typeof version === 'string')
    return onModern(res, message, version);
  const session = sessions.get(req.headers['mcp-session-id']);
  if (!session) return sendJson(res, 404, jsonError(id ?? null, -32001, 'Session not found'));
  if (method === undefined && id !== undefined) {
    const done = session.waiting.get(id);
    session.waiting.delete(id);
    done?.(message);
    res.writeHead(202).end();
    return;
  }
  if (id === undefined) {
    if (method === 'notifications/cancelled')
      stopCall(session, JSON.stringify(params?.requestId), 'parent cancelled');
    res.writeHead(202).end();
    return;
  }
  if (method === 'ping') return sendJson(res, 200, { jsonrpc: '2.0', id, result: {} });
  if (method === 'tools/list') return sendJson(res, 200, { jsonrpc: '2.0', id, result: { tools: TOOLS } });
  if (method === 'tools/call') return callTool(session, id, params, res);
  return sendJson(res, 200, jsonError(id, -32601, `Method not found: ${method}`));
}

// 2026-07-28: every request stands alone. `ask` asks for a sample in an input_required result
// whose requestState (the round, signed) must come back unchanged with the answer.
const MODERN = '2026-07-28';
const STATE_KEY = randomBytes(32);
const sign = (payload) => createHmac('sha256', STATE_KEY).update(payload).digest('base64url');

function onModern(res, { id, method, params }, version) {
  if (version !== MODERN && !broken('any-version'))
    return sendJson(res, 400, jsonError(id ?? null, -32600, `Unsupported protocol version ${version}`));
  const answer = (result) => sendJson(res, 200, { jsonrpc: '2.0', id, result });
  if (method === 'server/discover')
    return answer({
      supportedVersions: [MODERN],
      capabilities: { tools: {} },
      serverInfo: { name: 'broken-http', version: '0.0.1' },
    });
  if (method === 'tools/list') return answer({ tools: TOOLS });
  if (method !== 'tools/call')
    return sendJson(res, 200, jsonError(id, -32601, `Method not found: ${method}`));
  if (params?.name !== 'ask') return answer(text(`${params?.name} done`));
  const state = params.requestState;
  if (typeof state !== 'string') {
    const payload = Buffer.from(JSON.stringify({ round: 1 })).toString('base64url');
    return answer({
      resultType: 'input_required',
      inputRequests: {
        q1: { method: 'sampling/createMessage', params: { messages: [], maxTokens: 10 } },
      },
      requestState: `${payload}.${sign(payload)}`,
    });
  }
  const [payload, signature] = state.split('.');
  if (!broken('trust-state') && signature !== sign(payload ?? ''))
    return sendJson(res, 200, jsonError(id, -32602, 'requestState was changed'));
  return answer(text(`sampled: ${params.inputResponses?.q1?.content?.text ?? 'nothing'}`));
}

function onGet(req, res, session) {
  const last = req.headers['last-event-id'];
  if (broken('no-resume') || typeof last !== 'string') {
    res.writeHead(405, { allow: 'POST, DELETE' }).end();
    return;
  }
  const [streamId, n] = last.split(':');
  const stream = session.streams.get(streamId);
  if (!stream) return sendJson(res, 404, jsonError(null, -32000, 'Unknown event id'));
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.flushHeaders();
  stream.events.forEach((message, i) => {
    if (i + 1 > Number(n)) res.write(`id: ${stream.id}:${i + 1}\ndata: ${JSON.stringify(message)}\n\n`);
  });
  if (stream.ended) return res.end();
  if (broken('resume-no-answer')) return; // open, and nothing more ever comes
  stream.res = res;
  res.on('close', () => {
    if (stream.res === res) stream.res = null;
  });
}

function onDelete(res, sid, session) {
  if (broken('delete-hang')) {
    if (!broken('leak-sessions')) sessions.delete(sid);
    for (const call of session.calls.values()) call.orphaned = true;
    res.writeHead(200).end();
    return; // the calls keep running; their streams stay open and never end
  }
  if (!broken('leak-sessions')) sessions.delete(sid);
  if (broken('leak-memory')) kept.push(Buffer.alloc(BODY_LIMIT, 1));
  for (const key of [...session.calls.keys()]) stopCall(session, key, 'session deleted');
  res.writeHead(200).end();
}

const LOCAL = /^(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/;
const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  if (url.pathname !== '/mcp') return sendJson(res, 404, { error: 'not found' });
  if (!broken('no-host') && !LOCAL.test(req.headers.host ?? '')) {
    return sendJson(res, 421, jsonError(null, -32000, 'Host not allowed'));
  }
  const origin = req.headers.origin;
  if (!broken('no-origin') && origin !== undefined) {
    let host = '';
    try {
      host = new URL(origin).host;
    } catch {
      // Not a URL: refused below like any foreign origin.
    }
    if (!LOCAL.test(host)) return sendJson(res, 403, jsonError(null, -32000, 'Origin not allowed'));
  }
  const sid = req.headers['mcp-session-id'];
  if (req.method === 'DELETE' || req.method === 'GET') {
    const session = sessions.get(sid);
    if (!session) return sendJson(res, 404, jsonError(null, -32001, 'Session not found'));
    return req.method === 'DELETE' ? onDelete(res, sid, session) : onGet(req, res, session);
  }
  if (req.method !== 'POST') return res.writeHead(405, { allow: 'GET, POST, DELETE' }).end();
  const chunks = [];
  let size = 0;
  let over = false;
  req.on('data', (chunk) => {
    size += chunk.length;
    if (size > BODY_LIMIT && !broken('no-body-limit')) over = true;
    else chunks.push(chunk);
  });
  req.on('end', () => {
    if (over)
      return sendJson(res, 413, jsonError(null, -32600, `Body over ${BODY_LIMIT} bytes`), {
        connection: 'close',
      });
    const body = Buffer.concat(chunks).toString('utf8');
    let message;
    try {
      message = JSON.parse(body);
    } catch (error) {
      if (broken('malformed-crash')) throw error;
      if (broken('malformed-500')) {
        res.writeHead(500, { 'content-type': 'text/plain' }).end('Internal Server Error');
        return;
      }
      return sendJson(res, 400, jsonError(null, -32700, 'Parse error'));
    }
    onMessage(req, res, message);
  });
});
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  process.stdout.write(`http://127.0.0.1:${server.address().port}/mcp\n`);
});
process.once('SIGTERM', () => process.exit(0));
