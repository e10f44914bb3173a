/**
 * OpenTelemetry for the example servers, configured by the standard environment variables and
 * loaded only when they ask for it. With `OTEL_EXPORTER_OTLP_ENDPOINT` (or
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) set, it registers a tracer provider (batching to an OTLP
 * exporter over HTTP: `http/protobuf` by default, `http/json` when
 * `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL` / `OTEL_EXPORTER_OTLP_PROTOCOL` says so), W3C trace context
 * and baggage propagation, and, for `http/json`, an OTLP meter provider; `OTEL_SERVICE_NAME` and
 * `OTEL_RESOURCE_ATTRIBUTES` name the service. Without them nothing of OpenTelemetry is imported:
 * every OpenTelemetry module below is a dynamic import, so the examples run where only Keel's
 * dependencies are installed (`npm ci --omit=dev`).
 *
 *   OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318 OTEL_SERVICE_NAME=fixture npm run fixture:http
 */
import type { ServerInterceptor } from '../src/server/interceptors.js';

/** What an example does with telemetry once the environment enabled it. */
export interface OtelSetup {
  /** The interceptor to register first on the server (`server.use(otel.interceptor)`). */
  readonly interceptor: ServerInterceptor;
  /** Export what is buffered and stop (on stdin EOF, SIGTERM): bounded by the exporters' timeouts. */
  shutdown(): Promise<void>;
}

const env = process.env;

/** True when the environment asks for traces over OTLP. */
export function otelRequested(): boolean {
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

/**
 * Set up the SDK from the `OTEL_*` environment, or resolve `undefined` when it does not ask for it.
 *
 * @example
 * const otel = await otelFromEnv('keel-fixture', 'pipe');
 * if (otel) server.use(otel.interceptor);
 */
export async function otelFromEnv(
  serviceName: string,
  networkTransport: 'pipe' | 'tcp',
): Promise<OtelSetup | undefined> {
  if (!otelRequested() || env.OTEL_SDK_DISABLED === 'true') return undefined;
  const protocol =
    env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf';
  if (protocol !== 'http/protobuf' && protocol !== 'http/json') {
    console.error(
      `[otel] OTEL_EXPORTER_OTLP_PROTOCOL=${protocol} is not supported here (http/json, http/protobuf)`,
    );
    return undefined;
  }
  const [api, traceNode, traceBase, resources, telemetry] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/resources'),
    import('../src/telemetry/index.js'),
  ]);
  const { OTLPTraceExporter } =
    protocol === 'http/json'
      ? await import('@opentelemetry/exporter-trace-otlp-http')
      : await import('@opentelemetry/exporter-trace-otlp-proto');
  // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES (the env detector) win over our default name.
  const resource = resources
    .resourceFromAttributes({ 'service.name': serviceName })
    .merge(resources.detectResources({ detectors: [resources.envDetector] }));
  const tracing = new traceNode.NodeTracerProvider({
    resource,
    spanProcessors: [new traceBase.BatchSpanProcessor(new OTLPTraceExporter())],
  });
  // Global tracer provider, W3C trace context + baggage propagators, AsyncLocalStorage context.
  tracing.register();

  let stopMetrics = (): Promise<void> => Promise.resolve();
  // The installed metric exporter speaks http/json only; with http/protobuf, traces only.
  if (protocol === 'http/json' && env.OTEL_METRICS_EXPORTER !== 'none') {
    const [sdkMetrics, { OTLPMetricExporter }] = await Promise.all([
      import('@opentelemetry/sdk-metrics'),
      import('@opentelemetry/exporter-metrics-otlp-http'),
    ]);
    const meters = new sdkMetrics.MeterProvider({
      resource,
      readers: [new sdkMetrics.PeriodicExportingMetricReader({ exporter: new OTLPMetricExporter() })],
    });
    api.metrics.setGlobalMeterProvider(meters);
    stopMetrics = () => meters.shutdown();
  }
  let stopped: Promise<void> | undefined;
  return {
    interceptor: telemetry.serverTelemetry({ networkTransport }),
    shutdown: () =>
      (stopped ??= Promise.allSettled([tracing.shutdown(), stopMetrics()]).then((outcomes) => {
        for (const outcome of outcomes) {
          if (outcome.status === 'rejected') console.error(`[otel] shutdown: ${String(outcome.reason)}`);
        }
      })),
  };
}
