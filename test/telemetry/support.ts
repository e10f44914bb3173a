/**
 * The OpenTelemetry SDK as a test sees it: a global tracer provider (so a tool handler's own
 * `trace.getTracer()` span joins the trace) exporting to memory, W3C propagation, AsyncLocalStorage
 * context, and a meter provider read on demand (no export timer).
 */
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { MeterProvider, MetricReader, type HistogramMetricData } from '@opentelemetry/sdk-metrics';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { expect } from 'vitest';

class ReadOnDemand extends MetricReader {
  protected onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

export interface Otel {
  readonly spans: InMemorySpanExporter;
  readonly meterProvider: MeterProvider;
  /** Every histogram point of `name` now: attributes and count. */
  points(
    name: string,
  ): Promise<{ attributes: Record<string, unknown>; count: number; sum: number | undefined }[]>;
  reset(): void;
}

/** Register the SDK globally (once per test file: vitest runs each file in its own process). */
export function setUpOtel(): Otel {
  const spans = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
  provider.register();
  let reader = new ReadOnDemand();
  let meterProvider = new MeterProvider({ readers: [reader] });
  return {
    spans,
    get meterProvider() {
      return meterProvider;
    },
    async points(name) {
      const { resourceMetrics } = await reader.collect();
      const metric = resourceMetrics.scopeMetrics
        .flatMap((scope) => scope.metrics)
        .find((m) => m.descriptor.name === name) as HistogramMetricData | undefined;
      return (metric?.dataPoints ?? []).map((point) => ({
        attributes: { ...point.attributes },
        count: point.value.count,
        sum: point.value.sum,
      }));
    },
    reset() {
      spans.reset();
      reader = new ReadOnDemand();
      meterProvider = new MeterProvider({ readers: [reader] });
    },
  };
}

/** The one finished span named `name` of `kind` (fails on none or several). */
export function onlySpan(spans: readonly ReadableSpan[], name: string, kind: SpanKind): ReadableSpan {
  const found = spans.filter((span) => span.name === name && span.kind === kind);
  expect(
    found.map((span) => span.name),
    `spans named ${name}`,
  ).toEqual([name]);
  return found[0]!;
}

export function spansOf(otel: Otel, name: string, kind: SpanKind): ReadableSpan[] {
  return otel.spans.getFinishedSpans().filter((span) => span.name === name && span.kind === kind);
}

/** Whether `child`'s parent is `parent` (same trace). */
export function expectChildOf(child: ReadableSpan, parent: ReadableSpan): void {
  expect(child.spanContext().traceId).toBe(parent.spanContext().traceId);
  expect(child.parentSpanContext?.spanId).toBe(parent.spanContext().spanId);
}

export function expectError(span: ReadableSpan, errorType: string, message?: string): void {
  expect(span.attributes['error.type']).toBe(errorType);
  expect(span.status.code).toBe(SpanStatusCode.ERROR);
  if (message !== undefined) expect(span.status.message).toBe(message);
}

/** A span made by "user code" (a tool handler, an agent), through the global API. */
export const userTracer = () => trace.getTracer('test-user-code');
