/**
 * Shared start-up of Keel's HTTP bench servers: listen on 127.0.0.1:$PORT, stop cleanly on
 * SIGTERM/SIGINT (so `--cpu-prof` can write its profile on exit).
 */
import { serveHttp } from '../../src/adapters/node/index.js';
import type { HttpHandlerOptions } from '../../src/transports/http/server/options.js';
import { createBenchServer } from './keel-tools.js';

/**
 * @example
 * await startBenchHttp({ sessions: false });
 */
export async function startBenchHttp(options: HttpHandlerOptions): Promise<void> {
  const serving = await serveHttp(createBenchServer(), {
    ...options,
    port: Number(process.env.PORT ?? 3000),
    host: '127.0.0.1',
  });
  const stop = (): void => {
    void serving.close({ deadlineMs: 1_000 }).finally(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
