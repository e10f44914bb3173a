/**
 * Keel's Streamable HTTP bench server with sessions and OpenTelemetry on (in-memory exporters).
 */
import { startBenchHttp } from './keel-http-serve.js';
import { createTelemetryBenchServer } from './keel-otel.js';

await startBenchHttp({}, createTelemetryBenchServer());
