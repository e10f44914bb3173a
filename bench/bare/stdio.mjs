// The bare stdio limit: reads lines, JSON.parse, and writes hand-built answers for exactly the
// messages the benchmark sends. No validation, no framework — the cost of the transport itself.
let buffer = '';
let nextSamplingId = 0;
const waiting = new Map(); // sampling request id -> tool call id (JSON text)

// The answers of one tick go out in one write (one syscall on the pipe), flushed at the end of
// the tick or at 64 KiB, exactly as Keel's stdio writer does: the bare script must not pay a
// syscall per message that Keel saves, or it would stop being a floor.
const FLUSH_AT = 64 * 1024;
let pending = '';
let flushScheduled = false;

function flush() {
  flushScheduled = false;
  if (pending === '') return;
  const text = pending;
  pending = '';
  process.stdout.write(text);
}

function write(line) {
  pending += line + '\n';
  if (pending.length >= FLUSH_AT) flush();
  else if (!flushScheduled) {
    flushScheduled = true;
    process.nextTick(flush);
  }
}

function textResult(id, text) {
  return `{"jsonrpc":"2.0","id":${id},"result":{"content":[{"type":"text","text":${JSON.stringify(text)}}]}}`;
}

function onMessage(message) {
  const id = JSON.stringify(message.id);
  switch (message.method) {
    case 'initialize':
      write(
        `{"jsonrpc":"2.0","id":${id},"result":{"protocolVersion":${JSON.stringify(message.params.protocolVersion)},"capabilities":{"tools":{}},"serverInfo":{"name":"bare","version":"1.0.0"}}}`,
      );
      return;
    case 'tools/call': {
      const { name, arguments: args } = message.params;
      if (name === 'echo') {
        write(textResult(id, args.text));
      } else if (name === 'wait_sampling') {
        const samplingId = `s${nextSamplingId++}`;
        waiting.set(samplingId, id);
        write(
          `{"jsonrpc":"2.0","id":"${samplingId}","method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":${JSON.stringify(args.prompt)}}}],"maxTokens":64}}`,
        );
      }
      return;
    }
    case undefined: {
      // A response to our sampling request.
      const callId = waiting.get(message.id);
      if (callId === undefined) return;
      waiting.delete(message.id);
      write(textResult(callId, message.result.content.text));
      return;
    }
    default:
      if (message.id !== undefined) write(`{"jsonrpc":"2.0","id":${id},"result":{}}`);
  }
}

process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  let text = buffer + chunk;
  let newline;
  while ((newline = text.indexOf('\n')) !== -1) {
    const line = text.slice(0, newline);
    text = text.slice(newline + 1);
    if (line !== '') onMessage(JSON.parse(line));
  }
  buffer = text;
});
process.stdin.on('end', () => process.exit(0));
