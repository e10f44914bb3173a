/**
 * The tracer and the duration histograms of one side (server or client), resolved on first use:
 * `@opentelemetry/api` has no proxy for meters, so a meter taken before the application
 * registered its MeterProvider would stay a no-op forever.
 */
import { metrics, trace, type Histogram, type Tracer } from '@opentelemetry/api';
import { DURATION_BUCKETS } from './semconv.js';
import { SCOPE, type TelemetryOptions } from './options.js';

export interface Instruments {
  readonly tracer: Tracer;
  readonly operation: Histogram;
  readonly session: Histogram;
}

/** A lazy getter of the instruments named `operationMetric` and `sessionMetric`. */
export function lazyInstruments(
  options: TelemetryOptions,
  operationMetric: string,
  sessionMetric: string,
  side: 'server' | 'client',
): () => Instruments {
  let made: Instruments | undefined;
  return () => {
    if (made !== undefined) return made;
    const meter = (options.meterProvider ?? metrics.getMeterProvider()).getMeter(SCOPE);
    const advice = { explicitBucketBoundaries: [...DURATION_BUCKETS] };
    made = {
      tracer: (options.tracerProvider ?? trace.getTracerProvider()).getTracer(SCOPE),
      operation: meter.createHistogram(operationMetric, {
        unit: 's',
        description: `The duration of the MCP request or notification as observed on the ${side}.`,
        advice,
      }),
      session: meter.createHistogram(sessionMetric, {
        unit: 's',
        description: `The duration of the MCP session as observed on the ${side}.`,
        advice,
      }),
    };
    return made;
  };
}

/** Seconds since `start` (a `performance.now()` reading). */
export function secondsSince(start: number): number {
  return (performance.now() - start) / 1000;
}
