/**
 * The web-standard side of an exchange: a fetch `Request` read through {@link HttpExchange}, and
 * an {@link HttpReply} turned into a `Response` (SSE bodies become a `ReadableStream`).
 */
import type { BodyFault, HttpExchange, HttpReply, SseSink, SseSource } from './types.js';

/**
 * A fetch `Request` as an exchange. The client counts as gone when `request.signal` aborts or the
 * response body is cancelled.
 *
 * @example
 * const exchange = new WebExchange(request);
 * return toResponse(await serve(exchange, undefined), exchange);
 */
export class WebExchange implements HttpExchange {
  private goneCallback: (() => void) | undefined;
  private isGone = false;
  private listening = false;

  constructor(readonly request: Request) {}

  get method(): string {
    return this.request.method;
  }

  header(name: string): string | null {
    return this.request.headers.get(name);
  }

  host(): string | null {
    return this.request.headers.get('host') ?? hostOf(this.request.url);
  }

  headers(): Headers {
    return this.request.headers;
  }

  async readBody(limit: number): Promise<Uint8Array | BodyFault> {
    const body = this.request.body;
    if (!body) return EMPTY;
    const reader = body.getReader();
    const chunks: Uint8Array[] = [];
    let size = 0;
    try {
      for (;;) {
        const next = await reader.read();
        if (next.done) break;
        size += next.value.byteLength;
        if (size > limit) {
          reader.cancel().catch(ignore);
          return 'too-large';
        }
        chunks.push(next.value);
      }
    } catch {
      return 'unreadable';
    }
    return chunks.length === 1 ? chunks[0]! : concat(chunks, size);
  }

  discardBody(): void {
    const body = this.request.body;
    if (body && !this.request.bodyUsed) body.cancel().catch(ignore);
  }

  onClientGone(callback: () => void): void {
    this.goneCallback = callback;
    if (this.isGone) {
      callback();
      return;
    }
    const signal = this.request.signal;
    if (signal.aborted) this.clientGone();
    else if (!this.listening) {
      this.listening = true;
      signal.addEventListener('abort', () => this.clientGone(), { once: true });
    }
  }

  /** The client went away (request aborted or response body cancelled). Idempotent. */
  clientGone(): void {
    if (this.isGone) return;
    this.isGone = true;
    this.goneCallback?.();
  }
}

/**
 * A reply as a fetch `Response`.
 *
 * @example
 * return toResponse({ status: 202, headers: {}, body: undefined }, exchange);
 */
export function toResponse(reply: HttpReply, exchange: WebExchange): Response {
  const { status, headers, body } = reply;
  if (body === undefined || typeof body === 'string') return new Response(body ?? null, { status, headers });
  return new Response(eventStream(body, exchange), { status, headers });
}

const encoder = new TextEncoder();

/** An SSE source as a byte stream; the consumer cancelling it means the client left. */
function eventStream(source: SseSource, exchange: WebExchange): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        source.attach(new StreamSink(controller));
      },
      cancel() {
        exchange.clientGone();
      },
    },
    { highWaterMark: 0, size: (chunk) => chunk.byteLength },
  );
}

class StreamSink implements SseSink {
  constructor(private readonly controller: ReadableStreamDefaultController<Uint8Array>) {}

  write(text: string): number {
    const backlog = this.queued();
    try {
      this.controller.enqueue(encoder.encode(text));
    } catch {
      return Number.POSITIVE_INFINITY;
    }
    return backlog;
  }

  queued(): number {
    // High-water mark 0: minus the desired size is what is queued (null once errored).
    return Math.max(0, -(this.controller.desiredSize ?? 0));
  }

  end(): void {
    try {
      this.controller.close();
    } catch {
      // Already closed or cancelled by the consumer: nothing left to end.
    }
  }

  abort(): void {
    try {
      // An errored body aborts the response (the host destroys the connection) and drops the queue.
      this.controller.error(new Error('SSE client stopped reading'));
    } catch {
      // Already closed or cancelled: nothing to abort.
    }
  }
}

const EMPTY = new Uint8Array(0);

function concat(chunks: Uint8Array[], size: number): Uint8Array {
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

function hostOf(url: string): string | null {
  try {
    return new URL(url).host;
  } catch {
    return null;
  }
}

function ignore(): void {}
