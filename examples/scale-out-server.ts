/**
 * One process of a scale-out deployment (issue 12; docs/scale-out.md): an `McpServer` over
 * Streamable HTTP on `127.0.0.1:$PORT` whose sessions, events and relay live on `REDIS_URL`
 * (namespace `$KEEL_NAMESPACE`, default `scale-out`). Run several behind a load balancer:
 *
 *   PORT=3001 REDIS_URL=redis://127.0.0.1:6390 node dist/examples/scale-out-server.js
 *
 * Prints its URL on the first stdout line; every later stdout line is one JSON event
 * (`{"event":"slow-aborted",...}`) so a test can see what happened inside the process.
 */
import { z } from 'zod';
import { serveHttp } from '../src/adapters/node/index.js';
import { McpServer } from '../src/server/mcp-server.js';
import { sleep } from './fixture/sleep.js';
import { backplaneFromEnv } from './redis-backplane.js';

const port = Number(process.env.PORT ?? 3000);
const namespace = process.env.KEEL_NAMESPACE ?? 'scale-out';
const report = (message: string): void => console.error(`[scale-out ${port}] ${message}`);
const event = (name: string, detail: Record<string, unknown> = {}): void =>
  console.log(JSON.stringify({ event: name, pid: process.pid, ...detail }));

const server = new McpServer({ name: 'keel-scale-out', version: '1.0.0' });

server.tool('whoami', { description: 'Which process ran this call' }, () =>
  JSON.stringify({ port: boundPort(), pid: process.pid }),
);

// The bench's call (bench/scale-out.mjs): as cheap as a tool gets, so the relay's cost shows.
server.tool(
  'echo',
  { description: 'Returns its text', input: z.object({ text: z.string() }) },
  ({ text }) => text,
);

server.tool(
  'ask',
  { description: 'Asks the user for a string and returns it', input: z.object({ question: z.string() }) },
  async ({ question }, ctx) => {
    const answer = await ctx.elicit({
      message: question,
      schema: { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] },
    });
    return JSON.stringify({
      action: answer.action,
      answer: answer.content?.answer ?? null,
      pid: process.pid,
    });
  },
);

server.tool(
  'raise',
  {
    description: 'Tells every subscriber of test://watched that it changed, and logs to the caller',
    input: z.object({ note: z.string().optional() }),
  },
  async ({ note }, ctx) => {
    await server.notifyResourceUpdated('test://watched');
    await ctx.log('info', `raised by ${process.pid}${note ? `: ${note}` : ''}`);
    return JSON.stringify({ raised: 'test://watched', pid: process.pid });
  },
);

server.tool(
  'slow',
  {
    description: 'Waits `ms` (default 60 s) or until cancelled; reports an abort on stdout',
    input: z.object({ tag: z.string(), ms: z.number().int().min(0).max(600_000).optional() }),
  },
  async ({ tag, ms }, ctx) => {
    event('slow-started', { tag });
    try {
      await sleep(ms ?? 60_000, ctx.signal);
    } catch (error) {
      event('slow-aborted', { tag, reason: error instanceof Error ? error.name : String(error) });
      throw error;
    }
    event('slow-finished', { tag });
    return JSON.stringify({ tag, pid: process.pid });
  },
);

server.tool(
  'hop',
  {
    description: 'Ends its own SSE stream, then logs and answers: the client gets both by resuming',
    input: z.object({ note: z.string() }),
  },
  async ({ note }, ctx) => {
    await ctx.log('info', `before the break: ${note}`);
    ctx.closeSSEStream();
    await ctx.log('info', `after the break: ${note}`);
    return JSON.stringify({ note, pid: process.pid });
  },
);

server.resource(
  'watched',
  'test://watched',
  { description: 'A resource clients subscribe to; `raise` changes it', mimeType: 'text/plain' },
  () => `watched, served by ${process.pid}`,
);

const { backplane, close: closeRedis } = await backplaneFromEnv(namespace, report);
const serving = await serveHttp(server, {
  port,
  host: '127.0.0.1',
  path: '/mcp',
  backplane,
  // Short, so a client whose stream was cut resumes (on whichever process) without a long wait.
  retryMs: 200,
  logger: {
    debug() {},
    error: (message, detail) =>
      report(`${message} ${detail instanceof Error ? detail.message : JSON.stringify(detail ?? '')}`),
  },
});
function boundPort(): number {
  const address = serving.server.address();
  return typeof address === 'object' && address ? address.port : port;
}
console.log(serving.url);

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    if (stopping) return;
    stopping = true;
    // Bounded: sessions get 2 s to end, then the Redis client closes.
    void serving
      .close({ deadlineMs: 2_000 })
      .catch((error: unknown) => report(`close: ${String(error)}`))
      .finally(() => void closeRedis().catch((error: unknown) => report(`redis close: ${String(error)}`)));
  });
}
