/**
 * The conformance fixture over stdio: `node dist/examples/fixture-stdio.js`. stdout carries
 * protocol messages only; diagnostics go to stderr. With `OTEL_EXPORTER_OTLP_ENDPOINT` set it
 * traces every request (examples/otel-setup.ts; docs/telemetry.md), flushed at EOF and SIGTERM.
 */
import { serveStdio } from '../src/hosts/stdio/index.js';
import { createFixtureServer } from './fixture-server.js';
import { otelFromEnv } from './otel-setup.js';

const otel = await otelFromEnv('keel-fixture-stdio', 'pipe');
const fixture = createFixtureServer();
if (otel) {
  fixture.use(otel.interceptor);
  process.once('SIGTERM', () => void otel.shutdown().finally(() => process.exit(143)));
}
await serveStdio(fixture, {
  logger: {
    debug() {},
    error: (message, detail) => console.error(`[fixture] ${message}`, detail ?? ''),
  },
});
await otel?.shutdown();
