/**
 * Keel's stdio bench server with OpenTelemetry on (in-memory exporters). Exits when stdin ends.
 */
import { serveStdio } from 'keel-mcp/stdio';
import { createTelemetryBenchServer } from './keel-otel.js';

await serveStdio(createTelemetryBenchServer());
