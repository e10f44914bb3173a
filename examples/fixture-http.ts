/**
 * The conformance fixture over Streamable HTTP on the port in $PORT (default 3000), for the
 * official suite: `PORT=3001 npm run fixture:http`, then
 * `npx conformance server --url http://127.0.0.1:3001/mcp`.
 *
 * With `REDIS_URL` set its sessions, events and relay live on Redis (namespace `fixture`), so
 * several processes on different ports serve the same sessions (docs/scale-out.md):
 * `PORT=3001 REDIS_URL=redis://127.0.0.1:6390 npm run --silent fixture:http`.
 *
 * With `OTEL_EXPORTER_OTLP_ENDPOINT` set it traces every request (examples/otel-setup.ts;
 * docs/telemetry.md), flushed on SIGINT/SIGTERM.
 */
import { serveHttp } from '../src/adapters/node/index.js';
import { createFixtureServer } from './fixture-server.js';
import { otelFromEnv } from './otel-setup.js';
import { backplaneFromEnv } from './redis-backplane.js';

const port = Number(process.env.PORT ?? 3000);
const report = (message: string): void => console.error(`[fixture-http] ${message}`);
const { backplane, close: closeRedis } = await backplaneFromEnv('fixture', report);
const otel = await otelFromEnv('keel-fixture-http', 'tcp');
const fixture = createFixtureServer();
if (otel) fixture.use(otel.interceptor);
const serving = await serveHttp(fixture, {
  backplane,
  port,
  host: '127.0.0.1',
  path: '/mcp',
  // The suite's server-sse-streams-functional check wants every POST answered as a stream; the
  // default ('auto') answers handlers that emit nothing first with plain JSON, which it only notes.
  postResponse: 'sse',
  logger: {
    debug() {},
    error: (message, detail) => console.error(`[fixture-http] ${message}`, detail ?? ''),
  },
});
console.log(serving.url);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    // Bounded: sessions get 2 s to end, then the Redis client (if any) closes.
    // Tasks outlive connections: closing the server itself stops them (they end `failed`).
    void Promise.all([serving.close({ deadlineMs: 2_000 }), fixture.close()])
      .catch((error: unknown) => report(`close: ${String(error)}`))
      .finally(() => void closeRedis().catch((error: unknown) => report(`redis close: ${String(error)}`)))
      .finally(() => void otel?.shutdown());
  });
}
