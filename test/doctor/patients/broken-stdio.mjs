// A plain Node stdio "MCP server" (no SDK) for the doctor tests. With no flag it behaves: doctor's
// stdio checks all pass against it. Each flag in BROKEN (env, comma-separated) or `--break a,b`
// (argv) turns on one misbehaviour, so one check fails while the others keep passing:
//   eof-call        ignores stdin EOF while the slow tool runs, then writes its answer after EOF
//   eof-sampling    hangs on EOF while a tool waits on sampling (exits by itself after 60 s)
//   epipe           no 'error' listener on stdout: the client closing the pipe crashes it (exit 1)
//   cancel-twice    on notifications/cancelled answers with an error AND later with the result
//   answer-after-cancel  ignores notifications/cancelled and answers anyway
//   duplicate-id    accepts a second request reusing an in-flight id and answers both
//   malformed-crash a line that is not JSON throws (uncaught: exit 1)
//   malformed-stop  a line that is not JSON makes it stop reading (alive, deaf)
//   no-batch-error  a JSON array gets no answer at all
//   oversized-die   a line over 1 MiB kills it (exit 134, as an out-of-memory abort would)
//   stdout-log      prints human text on stdout (at start and on every call)
//   second-init     a second initialize is answered as a new session
//   eof-idle        ignores stdin EOF while idle: a timer keeps it running (exits by itself after 60 s)
// Tools: fast (answers at once), slow (3 s, with progress when asked), ask (sampling/createMessage).
import process from 'node:process';

const flagArg = process.argv.indexOf('--break');
const BROKEN = new Set(
  [process.env.BROKEN ?? '', flagArg >= 0 ? (process.argv[flagArg + 1] ?? '') : '']
    .join(',')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
);
const broken = (mode) => BROKEN.has(mode);
const LINE_LIMIT = 1024 * 1024;
const SLOW_MS = 3000;

let eof = false;
let initialized = false;
const inflight = new Map(); // request id (JSON) -> { timers, cancelled }
const waiting = new Map(); // our outgoing request id -> callback
let nextOutId = 1;

if (!broken('epipe')) {
  // A client that stops reading is normal; EPIPE just means nobody listens any more.
  process.stdout.on('error', () => {});
}

function send(message) {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}
const result = (id, value) => send({ jsonrpc: '2.0', id, result: value });
const error = (id, code, message) => send({ jsonrpc: '2.0', id, error: { code, message } });
const text = (t) => ({ content: [{ type: 'text', text: t }] });

const TOOLS = [
  { name: 'fast', description: 'Answers at once', inputSchema: { type: 'object' } },
  { name: 'slow', description: 'Runs for 3 seconds (reports progress)', inputSchema: { type: 'object' } },
  { name: 'ask', description: 'Asks the client to sample a message', inputSchema: { type: 'object' } },
];

function finish(key) {
  const entry = inflight.get(key);
  if (entry) for (const t of entry.timers) clearTimeout(t);
  inflight.delete(key);
}

function exitIfDone() {
  if (eof && inflight.size === 0) process.exit(0);
}

function callTool(id, params) {
  const key = JSON.stringify(id);
  const name = params?.name;
  if (broken('stdout-log')) process.stdout.write(`calling tool ${name}\n`);
  if (name === 'fast') return result(id, text('fast done'));
  if (name === 'slow') {
    const entry = { timers: [], cancelled: false };
    if (inflight.has(key) && broken('duplicate-id')) inflight.set(`${key}#2`, entry);
    else inflight.set(key, entry);
    const token = params?._meta?.progressToken;
    if (token !== undefined) {
      entry.timers.push(
        setTimeout(
          () =>
            send({
              jsonrpc: '2.0',
              method: 'notifications/progress',
              params: { progressToken: token, progress: 1, total: 2 },
            }),
          SLOW_MS / 2,
        ),
      );
    }
    entry.timers.push(
      setTimeout(() => {
        for (const [k, v] of inflight) if (v === entry) inflight.delete(k);
        result(id, text('slow done'));
        exitIfDone();
      }, SLOW_MS),
    );
    return;
  }
  if (name === 'ask') {
    inflight.set(key, { timers: [], cancelled: false });
    const outId = `s${nextOutId++}`;
    waiting.set(outId, (answer) => {
      if (!inflight.has(key)) return;
      inflight.delete(key);
      const said = answer?.result?.content?.text ?? JSON.stringify(answer?.error ?? null);
      result(id, text(`the client said: ${said}`));
      exitIfDone();
    });
    send({
      jsonrpc: '2.0',
      id: outId,
      method: 'sampling/createMessage',
      params: { messages: [{ role: 'user', content: { type: 'text', text: 'Say hi' } }], maxTokens: 20 },
    });
    return;
  }
  error(id, -32602, `Unknown tool: ${name}`);
}

function handle(message) {
  if (Array.isArray(message)) {
    if (!broken('no-batch-error')) error(null, -32600, 'Batches are not supported');
    return;
  }
  if (message === null || typeof message !== 'object') return error(null, -32600, 'Invalid request');
  const { id, method, params } = message;
  if (method === undefined && id !== undefined) {
    const done = waiting.get(id);
    waiting.delete(id);
    done?.(message);
    return;
  }
  if (id === undefined) {
    if (method === 'notifications/cancelled') {
      const key = JSON.stringify(params?.requestId);
      if (!inflight.has(key) || broken('answer-after-cancel')) return;
      if (broken('cancel-twice')) return error(params.requestId, -32800, 'Request cancelled');
      finish(key);
      exitIfDone();
    }
    return;
  }
  if (method === 'initialize') {
    if (initialized && !broken('second-init')) return error(id, -32600, 'Already initialized');
    initialized = true;
    return result(id, {
      protocolVersion: params?.protocolVersion ?? '2025-11-25',
      capabilities: { tools: {} },
      serverInfo: { name: 'broken-stdio', version: '0.0.1' },
    });
  }
  if (method === 'ping') return result(id, {});
  if (!initialized) return error(id, -32600, 'Not initialized');
  if (inflight.has(JSON.stringify(id)) && !broken('duplicate-id')) {
    return error(id, -32600, `Request id ${JSON.stringify(id)} is already in flight`);
  }
  if (method === 'tools/list') return result(id, { tools: TOOLS });
  if (method === 'tools/call') return callTool(id, params);
  return error(id, -32601, `Method not found: ${method}`);
}

let buffer = '';
let reading = true;
let skipping = false; // inside a line already known to be too long: drop it up to its newline
function onLine(line) {
  if (!line.trim()) return;
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    if (broken('malformed-crash')) throw new Error(`Unexpected token in JSON: ${line.slice(0, 20)}`);
    if (broken('malformed-stop')) {
      reading = false;
      return;
    }
    return error(null, -32700, 'Parse error');
  }
  handle(message);
}

function tooLarge() {
  if (broken('oversized-die')) {
    process.stderr.write(
      'FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory\n',
    );
    process.exit(134);
  }
  error(null, -32600, `Message too large (over ${LINE_LIMIT} bytes)`);
}

if (broken('stdout-log')) process.stdout.write('broken-stdio server started, waiting for messages\n');
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  if (!reading) return;
  if (skipping) {
    const nl = chunk.indexOf('\n');
    if (nl < 0) return;
    skipping = false;
    tooLarge();
    chunk = chunk.slice(nl + 1);
  }
  buffer += chunk;
  let nl;
  while (reading && (nl = buffer.indexOf('\n')) >= 0) {
    const line = buffer.slice(0, nl);
    buffer = buffer.slice(nl + 1);
    if (line.length > LINE_LIMIT) tooLarge();
    else onLine(line);
  }
  if (buffer.length > LINE_LIMIT) {
    buffer = '';
    if (broken('oversized-die')) tooLarge();
    skipping = true;
  }
});

process.stdin.on('end', () => {
  eof = true;
  if (inflight.size === 0 && broken('eof-idle')) {
    setTimeout(() => process.exit(0), 60_000);
    return;
  }
  const waitingOnClient = [...inflight.keys()].some((k) => !inflight.get(k).timers.length);
  if (waitingOnClient && broken('eof-sampling')) {
    // Waits for a sampling answer that can never come, like a 60 s request timeout would.
    setTimeout(() => process.exit(1), 60_000);
    return;
  }
  if (inflight.size > 0 && broken('eof-call')) return; // the slow timer still answers, after EOF
  for (const key of [...inflight.keys()]) finish(key);
  process.exit(0);
});
