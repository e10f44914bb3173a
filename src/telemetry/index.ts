/**
 * `keel-mcp/telemetry`: OpenTelemetry traces and metrics for Keel servers and clients, following
 * the OpenTelemetry semantic conventions for MCP, with trace context carried in `params._meta`
 * (SEP-414). Built on `@opentelemetry/api` only (an optional peer dependency): nothing else in
 * Keel imports this entry, so a program that does not import it never loads OpenTelemetry.
 * See docs/telemetry.md.
 */
export { serverTelemetry } from './server-telemetry.js';
export { clientTelemetry, instrumentClient, type InstrumentableClient } from './client-telemetry.js';
export type { TelemetryOptions } from './options.js';
