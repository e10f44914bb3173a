/**
 * The default Keel bench server with OpenTelemetry on (issue 26): the OpenTelemetry SDK registered
 * as a production setup would register it (`NodeTracerProvider` with its AsyncLocalStorage context
 * manager and W3C propagators, a `BatchSpanProcessor`, a `MeterProvider` with a periodic reader),
 * exporting to in-memory exporters instead of a collector, and `serverTelemetry()` registered
 * first. What the bench measures is Keel's instrumentation plus the SDK's work per call, without
 * the network cost of a real exporter.
 */
import { metrics } from '@opentelemetry/api';
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import { BatchSpanProcessor, InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import type { McpServer } from 'keel-mcp/server';
import { serverTelemetry } from 'keel-mcp/telemetry';
import { createBenchServer } from './keel-tools.js';

/** Finished spans are dropped every second: the exporter must not grow with the load. */
const spans = new InMemorySpanExporter();
setInterval(() => spans.reset(), 1_000).unref();

const tracing = new NodeTracerProvider({ spanProcessors: [new BatchSpanProcessor(spans)] });
tracing.register();
metrics.setGlobalMeterProvider(
  new MeterProvider({
    readers: [
      new PeriodicExportingMetricReader({
        exporter: new InMemoryMetricExporter(AggregationTemporality.DELTA),
        exportIntervalMillis: 1_000,
      }),
    ],
  }),
);

/**
 * @example
 * await serveStdio(createTelemetryBenchServer());
 */
export function createTelemetryBenchServer(): McpServer {
  return createBenchServer().use(serverTelemetry());
}
