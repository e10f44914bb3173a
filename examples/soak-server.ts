/**
 * The server of the soak test (issue 28, `npm run soak`; docs/soak.md): an `McpServer` over
 * Streamable HTTP on `127.0.0.1:$PORT` (0: any free port), on `REDIS_URL` when it is set (namespace
 * `$KEEL_NAMESPACE`, default `soak`). Prints its URL on the first stdout line. Started by
 * scripts/soak with an IPC channel: a `stats` message is answered with the process's memory,
 * handles and sessions, measured after a full garbage collection when `--expose-gc` is on (so the
 * load never sees the measuring). `SOAK_LEAK=<bytes>` makes every `short` call keep that many bytes
 * for ever: the leak the soak must catch (test/soak/).
 */
import { z } from 'zod';
import { serveHttp } from '../src/adapters/node/index.js';
import { McpServer } from '../src/server/mcp-server.js';
import { sleep } from './fixture/sleep.js';
import { backplaneFromEnv } from './redis-backplane.js';

const report = (message: string): void => console.error(`[soak ${process.pid}] ${message}`);
// The three processes of a deployment verify each other's `requestState` (2026-07-28 input rounds).
const stateKey = process.env.KEEL_STATE_KEY;
const server = new McpServer(
  { name: 'keel-soak', version: '1.0.0' },
  stateKey ? { requestState: { keys: [{ id: 'soak', secret: stateKey }] } } : {},
);
const leaked: number[][] = [];
const leakBytes = Number(process.env.SOAK_LEAK ?? 0);

server.tool('short', { description: 'Answers at once', input: z.object({ n: z.number() }) }, ({ n }) => {
  // On the JS heap (a buffer's bytes live outside it): what a forgotten Map entry does.
  if (leakBytes > 0) leaked.push(new Array<number>(leakBytes >> 3).fill(n + 0.5));
  return `short ${n}`;
});

server.tool(
  'progress',
  {
    description: 'Reports progress `steps` times, `ms` apart',
    input: z.object({ steps: z.number(), ms: z.number() }),
  },
  async ({ steps, ms }, ctx) => {
    for (let step = 1; step <= steps; step++) {
      await sleep(ms, ctx.signal);
      await ctx.progress(step, steps, `step ${step}`);
    }
    return `progress ${steps}`;
  },
);

server.tool('elicit', { description: 'Asks the client for a word' }, async (_args, ctx) => {
  const answer = await ctx.elicit({
    message: 'A word, please',
    schema: { type: 'object', properties: { word: { type: 'string' } }, required: ['word'] },
  });
  return answer.action === 'accept' ? `got ${String(answer.content.word)}` : `declined`;
});

server.tool(
  'slow',
  { description: 'Waits `ms` (for cancels and disconnects)', input: z.object({ ms: z.number() }) },
  async ({ ms }, ctx) => {
    await sleep(ms, ctx.signal);
    return `slow ${ms}`;
  },
);

const { backplane, close: closeRedis } = await backplaneFromEnv(process.env.KEEL_NAMESPACE ?? 'soak', report);
const serving = await serveHttp(server, {
  port: Number(process.env.PORT ?? 0),
  host: '127.0.0.1',
  backplane,
  retryMs: 200,
  logger: { debug() {}, error: (message) => report(message) },
});
console.log(serving.url);

const gc = (globalThis as { gc?: () => void }).gc;
process.on('message', (message: unknown) => {
  if (message !== 'stats') return;
  gc?.();
  const memory = process.memoryUsage();
  process.send?.({
    heapUsed: memory.heapUsed,
    rss: memory.rss,
    handles: process.getActiveResourcesInfo().length,
    sessions: serving.handler.sessionCount,
    leaked: leaked.length,
  });
});

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    if (stopping) return;
    stopping = true;
    void serving
      .close({ deadlineMs: 5_000 })
      .catch((error: unknown) => report(`close: ${String(error)}`))
      .finally(() => {
        void closeRedis().finally(() => process.disconnect?.());
      });
  });
}
