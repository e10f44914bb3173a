/** The options of {@link serverTelemetry} and {@link clientTelemetry}. */
import type { MeterProvider, TracerProvider } from '@opentelemetry/api';

/**
 * Where spans and metrics go, and facts the interceptor cannot see for itself.
 *
 * @example
 * server.use(serverTelemetry({ tracerProvider: provider, networkTransport: 'pipe' }));
 */
export interface TelemetryOptions {
  /** The provider of the tracer; default the global one (`trace.setGlobalTracerProvider`). */
  readonly tracerProvider?: TracerProvider;
  /** The provider of the meter; default the global one (`metrics.setGlobalMeterProvider`). */
  readonly meterProvider?: MeterProvider;
  /**
   * `network.transport` of every span and metric: `pipe` for stdio, `tcp` for HTTP. The server
   * default: `tcp` when the request came over HTTP (it has headers), unset otherwise (stdio and an
   * in-memory pair look the same from inside).
   */
  readonly networkTransport?: 'pipe' | 'tcp' | 'quic' | 'unix';
}

/** Tracer and meter scope name. */
export const SCOPE = 'keel-mcp';
