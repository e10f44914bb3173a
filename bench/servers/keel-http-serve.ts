/**
 * Shared start-up of Keel's HTTP bench servers: listen on 127.0.0.1:$PORT, stop cleanly on
 * SIGTERM/SIGINT (so `--cpu-prof` can write its profile on exit).
 */
import { serveHttp } from 'keel-mcp/node';
import type { McpServer } from 'keel-mcp/server';
import type { HttpHandlerOptions } from 'keel-mcp/http';
import { createBenchServer } from './keel-tools.js';

/**
 * Session-table limits of every Keel bench server with sessions: the memory phase opens 10,000
 * idle sessions after a warm batch, past Keel's default `max` (10,000), and the SDK and bare
 * servers have no cap; so the bench raises it (an evicted warm session would free memory inside
 * the measured window). Keel's own defaults are unchanged.
 */
export const BENCH_SESSION_LIMITS = { max: 100_000 } as const;

/**
 * @example
 * await startBenchHttp({ sessions: false });
 * await startBenchHttp({}, createZodBenchServer());
 */
export async function startBenchHttp(
  options: HttpHandlerOptions,
  server: McpServer = createBenchServer(),
): Promise<void> {
  const serving = await serveHttp(server, {
    ...options,
    sessions: options.sessions === false ? false : { ...BENCH_SESSION_LIMITS, ...options.sessions },
    port: Number(process.env.PORT ?? 3000),
    host: '127.0.0.1',
  });
  stopOnSignal(() => serving.close({ deadlineMs: 1_000 }));
}

/**
 * Exit once `close` settled, on the first SIGTERM or SIGINT.
 *
 * @example
 * stopOnSignal(() => handler.close({ deadlineMs: 1_000 }));
 */
export function stopOnSignal(close: () => Promise<void>): void {
  const stop = (): void => {
    void close().finally(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
