/**
 * The client side: one CLIENT span per outbound request (retries and 2026-07-28 input rounds
 * included: they run inside it), its trace context injected into the request's `params._meta`,
 * and the `mcp.client.operation.duration` / `mcp.client.session.duration` histograms.
 */
import { context, propagation, SpanKind, trace, type Attributes } from '@opentelemetry/api';
import type { ClientCall, ClientInterceptor, ClientNext } from '../client/interceptors.js';
import type { JsonObject } from '../core/jsonrpc.js';
import { lazyInstruments, secondsSince, type Instruments } from './instruments.js';
import { META_SETTER } from './meta-carrier.js';
import type { TelemetryOptions } from './options.js';
import { Operation } from './outcome.js';
import { ATTR, describeCall, METRIC } from './semconv.js';

/**
 * A client interceptor that traces and measures every outbound request following the
 * OpenTelemetry semantic conventions for MCP, and injects the span's trace context into
 * `params._meta` (SEP-414) so that the server's span is its child. The caller's params object is
 * not changed. {@link instrumentClient} adds the session duration metric.
 *
 * @example
 * import { McpClient } from 'keel-mcp/client';
 * import { clientTelemetry } from 'keel-mcp/telemetry';
 *
 * const client = new McpClient({ name: 'agent', version: '1.0.0' });
 * client.use(clientTelemetry());
 */
export function clientTelemetry(options: TelemetryOptions = {}): ClientInterceptor {
  const instruments = lazyInstruments(options, METRIC.CLIENT_OPERATION, METRIC.CLIENT_SESSION, 'client');
  return (call, next) => traced(call, next, instruments(), options.networkTransport);
}

/**
 * What {@link instrumentClient} needs of a client: `McpClient` and the low-level `Client` have it.
 *
 * @example
 * const low: InstrumentableClient = new Client({ name: 'agent', version: '1.0.0' });
 * instrumentClient(low);
 */
export interface InstrumentableClient {
  use(interceptor: ClientInterceptor): unknown;
  /** Settles when the current connection closed. */
  readonly closed: Promise<void>;
  readonly isConnected: boolean;
}

/**
 * {@link clientTelemetry} on `client`, plus `mcp.client.session.duration`: a connection's duration
 * is recorded when it closes, counted from this call when the client is already connected, else
 * from its first request (the connect handshake is not intercepted).
 *
 * @example
 * const client = instrumentClient(new McpClient({ name: 'agent', version: '1.0.0' }));
 * await client.connect(transport);
 * await client.callTool('get-weather', { city: 'Paris' }); // a CLIENT span "tools/call get-weather"
 * await client.close(); // one mcp.client.session.duration point
 */
export function instrumentClient<C extends InstrumentableClient>(
  client: C,
  options: TelemetryOptions = {},
): C {
  const instruments = lazyInstruments(options, METRIC.CLIENT_OPERATION, METRIC.CLIENT_SESSION, 'client');
  const transport = options.networkTransport;
  let watched: Promise<void> | undefined;
  const watch = (version: string | undefined): void => {
    const closed = client.closed;
    if (closed === watched || !client.isConnected) return;
    watched = closed;
    const opened = performance.now();
    const made = instruments();
    void closed.then(() => {
      const attributes: Attributes = {};
      if (version !== undefined) attributes[ATTR.PROTOCOL_VERSION] = version;
      if (transport !== undefined) attributes[ATTR.NETWORK_TRANSPORT] = transport;
      made.session.record(secondsSince(opened), attributes);
    });
  };
  watch(undefined);
  client.use((call, next) => {
    watch(call.protocolVersion);
    return traced(call, next, instruments(), transport);
  });
  return client;
}

function traced(
  call: ClientCall,
  next: ClientNext,
  made: Instruments,
  transport: string | undefined,
): Promise<JsonObject> {
  const start = performance.now();
  const params = call.params;
  const attributes: Attributes = {};
  const name = describeCall(call.method, params, attributes as Record<string, string>);
  const sessionId = call.sessionId;
  if (sessionId !== undefined) attributes[ATTR.SESSION_ID] = sessionId;
  const version = call.protocolVersion;
  if (version !== undefined) attributes[ATTR.PROTOCOL_VERSION] = version;
  if (transport !== undefined) attributes[ATTR.NETWORK_TRANSPORT] = transport;

  const parent = context.active();
  const span = made.tracer.startSpan(name, { kind: SpanKind.CLIENT, attributes }, parent);
  const active = trace.setSpan(parent, span);
  const operation = new Operation(span, call.method, attributes, made.operation, start);
  const carrier: Record<string, string> = {};
  propagation.inject(active, carrier, META_SETTER);
  // New objects: the caller may reuse its params (and its `_meta`) for another request.
  let outbound = params;
  for (const _key in carrier) {
    outbound = { ...params, _meta: { ...(params?._meta as JsonObject | undefined), ...carrier } };
    break;
  }
  // `next` never throws synchronously (it always returns a promise).
  return context
    .with(active, () => next(outbound))
    .then(
      (result) => {
        operation.succeeded(result);
        return result;
      },
      (error: unknown) => {
        operation.failed(error);
        throw error;
      },
    );
}
