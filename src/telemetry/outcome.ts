/** How a span and its duration point end: once, whichever of result, error or abort comes first. */
import { SpanStatusCode, type Attributes, type Histogram, type Span } from '@opentelemetry/api';
import { McpError } from '../core/error-classes.js';
import type { JsonObject } from '../core/jsonrpc.js';
import { secondsSince } from './instruments.js';
import { ATTR, errorTypeOf, isToolError, TOOL_ERROR } from './semconv.js';

/** Attributes that are on the span but not on the duration metric (high cardinality, or opt-in). */
const SPAN_ONLY = [ATTR.REQUEST_ID, ATTR.SESSION_ID, ATTR.RESOURCE_URI] as const;

/** One operation in flight: its span, when it started, and the histogram its duration goes to. */
export class Operation {
  private done = false;

  constructor(
    private readonly span: Span,
    private readonly method: string,
    private readonly attributes: Attributes,
    private readonly histogram: Histogram,
    private readonly start: number,
  ) {}

  get ended(): boolean {
    return this.done;
  }

  /** The call answered with `result` (a tool's `isError: true` counts as `tool_error`). */
  succeeded(result: JsonObject): void {
    if (isToolError(this.method, result)) this.end(TOOL_ERROR, undefined, firstText(result));
    else this.end(undefined, undefined, undefined);
  }

  /** The call failed, was cancelled or lost its connection (`error` is the reason). */
  failed(error: unknown): void {
    const code = error instanceof McpError ? String(error.code) : undefined;
    this.end(errorTypeOf(error), code, error instanceof Error ? error.message : undefined);
  }

  private end(
    errorType: string | undefined,
    statusCode: string | undefined,
    message: string | undefined,
  ): void {
    if (this.done) return;
    this.done = true;
    const span = this.span;
    const attributes = this.attributes;
    if (errorType !== undefined) {
      attributes[ATTR.ERROR_TYPE] = errorType;
      span.setAttribute(ATTR.ERROR_TYPE, errorType);
      if (statusCode !== undefined) {
        attributes[ATTR.STATUS_CODE] = statusCode;
        span.setAttribute(ATTR.STATUS_CODE, statusCode);
      }
      span.setStatus(
        message === undefined ? { code: SpanStatusCode.ERROR } : { code: SpanStatusCode.ERROR, message },
      );
    }
    span.end();
    for (const key of SPAN_ONLY) delete attributes[key];
    this.histogram.record(secondsSince(this.start), attributes);
  }
}

/** The first text block of a tool result: the status description of a `tool_error`. */
function firstText(result: JsonObject): string | undefined {
  const content = result.content;
  if (!Array.isArray(content)) return undefined;
  const first = content[0] as { type?: unknown; text?: unknown } | undefined;
  return first?.type === 'text' && typeof first.text === 'string' ? first.text : undefined;
}
