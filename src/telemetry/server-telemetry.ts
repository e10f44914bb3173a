/**
 * The server side: one SERVER span per inbound request or notification, a child of the trace
 * context the client put in `params._meta`, active while the handler runs; and the
 * `mcp.server.operation.duration` / `mcp.server.session.duration` histograms.
 */
import { context, propagation, SpanKind, trace, type Attributes, type SpanOptions } from '@opentelemetry/api';
import type { AbortWatcher } from '../core/engine/inbound.js';
import type { JsonObject } from '../core/jsonrpc.js';
import type { ServerCall, ServerInterceptor, ServerNext } from '../server/interceptors.js';
import type { ServerSession } from '../server/server-session.js';
import { lazyInstruments, secondsSince, type Instruments } from './instruments.js';
import { META_GETTER } from './meta-carrier.js';
import type { TelemetryOptions } from './options.js';
import { Operation } from './outcome.js';
import { ATTR, describeCall, METRIC } from './semconv.js';

/**
 * A server interceptor that traces and measures every inbound request and notification following
 * the OpenTelemetry semantic conventions for MCP. Spans and metrics go to the global providers
 * (or the ones in `options`); trace context comes from `params._meta` (`traceparent`,
 * `tracestate`, `baggage`) through the global propagator. Register it first, so that its span
 * covers the other interceptors too.
 *
 * @example
 * import { McpServer } from 'keel-mcp/server';
 * import { serverTelemetry } from 'keel-mcp/telemetry';
 *
 * const server = new McpServer({ name: 'weather', version: '1.0.0' });
 * server.use(serverTelemetry());
 */
export function serverTelemetry(options: TelemetryOptions = {}): ServerInterceptor {
  const instruments = lazyInstruments(options, METRIC.SERVER_OPERATION, METRIC.SERVER_SESSION, 'server');
  const sessions = new WeakSet<ServerSession>();
  const transport = options.networkTransport;
  return (call, next) => {
    const made = instruments();
    if (call.method === 'initialize' && !sessions.has(call.session)) {
      sessions.add(call.session);
      measureSession(call.session, made, transport ?? (call.info?.headers ? 'tcp' : undefined));
    }
    return traced(call, next, made, transport);
  };
}

function traced(
  call: ServerCall,
  next: ServerNext,
  made: Instruments,
  transport: string | undefined,
): Promise<JsonObject> {
  const start = performance.now();
  const attributes: Attributes = {};
  const name = describeCall(call.method, call.params, attributes as Record<string, string>);
  const id = call.id;
  if (id !== undefined) attributes[ATTR.REQUEST_ID] = String(id);
  const sessionId = call.session.sessionId;
  if (sessionId !== undefined) attributes[ATTR.SESSION_ID] = sessionId;
  const version = call.protocolVersion;
  if (version !== undefined) attributes[ATTR.PROTOCOL_VERSION] = version;
  if (call.info?.headers !== undefined) {
    attributes[ATTR.NETWORK_TRANSPORT] = transport ?? 'tcp';
    attributes[ATTR.NETWORK_PROTOCOL] = 'http';
  } else if (transport !== undefined) attributes[ATTR.NETWORK_TRANSPORT] = transport;

  // The conventions: the context in `_meta` is the parent; an ambient one (an HTTP server span of
  // another instrumentation) is linked, since one HTTP request can carry several MCP messages.
  const ambient = context.active();
  const parent = propagation.extract(ambient, call.meta, META_GETTER);
  const ambientSpan = trace.getSpanContext(ambient);
  const spanOptions: SpanOptions =
    ambientSpan !== undefined && trace.getSpanContext(parent) !== ambientSpan
      ? { kind: SpanKind.SERVER, attributes, links: [{ context: ambientSpan }] }
      : { kind: SpanKind.SERVER, attributes };
  const span = made.tracer.startSpan(name, spanOptions, parent);
  const operation = new Operation(span, call.method, attributes, made.operation, start);

  // A cancel or disconnect ends the span when it happens, not when a handler that ignores its
  // signal returns (the engine writes no answer then either).
  const requestContext = call.context;
  let watcher: AbortWatcher | undefined;
  if (requestContext !== undefined) {
    watcher = { parentAborted: (reason) => operation.failed(reason) };
    requestContext.watchAbort(watcher);
  }
  const settle = (): void => {
    if (watcher !== undefined) requestContext!.unwatchAbort(watcher);
  };
  // `next` never throws synchronously (it always returns a promise).
  return context.with(trace.setSpan(parent, span), next).then(
    (result) => {
      settle();
      operation.succeeded(result);
      return result;
    },
    (error: unknown) => {
      settle();
      operation.failed(error);
      throw error;
    },
  );
}

/** Record `mcp.server.session.duration` when `session` closes. */
function measureSession(session: ServerSession, made: Instruments, transport: string | undefined): void {
  const opened = performance.now();
  void session.closed.then(() => {
    const attributes: Attributes = {};
    const version = session.protocolVersion;
    if (version !== undefined) attributes[ATTR.PROTOCOL_VERSION] = version;
    if (transport !== undefined) attributes[ATTR.NETWORK_TRANSPORT] = transport;
    made.session.record(secondsSince(opened), attributes);
  });
}
