/**
 * Shared start-up of Keel's HTTP bench servers: listen on 127.0.0.1:$PORT, stop cleanly on
 * SIGTERM/SIGINT (so `--cpu-prof` can write its profile on exit).
 */
import { serveHttp } from 'keel-mcp/node';
import type { McpServer } from 'keel-mcp/server';
import type { HttpHandlerOptions } from 'keel-mcp/http';
import { createBenchServer } from './keel-tools.js';

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
