/**
 * The owner's side of a relayed exchange: the forwarded request as an {@link HttpExchange} the
 * handler core serves like any other, and the sink that sends its SSE body back over the relay.
 */
import type { BodyFault, HttpExchange, SseSink } from '../../../transports/http/server-wire/types.js';
import { decodeBody, type OpenMessage } from './tunnel-wire.js';

/**
 * A request another process received for a session this process owns.
 *
 * @example
 * const exchange = new InboundExchange(open);
 * const reply = await core.serve(exchange, open.e);
 */
export class InboundExchange implements HttpExchange {
  private readonly requestHeaders: Headers;
  private goneCallback: (() => void) | undefined;
  private isGone = false;

  /** Throws on headers the `Headers` class refuses (a malformed message: the caller drops it). */
  constructor(private readonly open: OpenMessage) {
    this.requestHeaders = new Headers(open.h);
  }

  get method(): string {
    return this.open.m.toUpperCase();
  }

  header(name: string): string | null {
    return this.requestHeaders.get(name);
  }

  host(): string | null {
    return this.requestHeaders.get('host');
  }

  headers(): Headers {
    return this.requestHeaders;
  }

  readBody(limit: number): Promise<Uint8Array | BodyFault> {
    const bytes = decodeBody(this.open);
    return Promise.resolve(bytes.byteLength > limit ? 'too-large' : bytes);
  }

  discardBody(): void {
    // The body came whole in the message: nothing to drain.
  }

  onClientGone(callback: () => void): void {
    this.goneCallback = callback;
    if (this.isGone) callback();
  }

  /** The forwarder said its client left, or the forwarder itself is gone. Idempotent. */
  clientGone(): void {
    if (this.isGone) return;
    this.isGone = true;
    this.goneCallback?.();
  }
}

/** How a relay sink reaches its forwarder. */
export interface RelaySinkTarget {
  /** Send one chunk (`data`), or the end (`end` / `abort`), to the forwarder. */
  push(message: { t: 'data'; d: string } | { t: 'end' } | { t: 'abort' }): void;
  /** The forwarder's client is gone: writes count as undeliverable. */
  readonly gone: boolean;
}

/**
 * An SSE body streamed to the forwarder as `data` chunks. The relay gives no backpressure
 * signal, so `queued()` is 0: the forwarder applies the output budget to its own client and says
 * `gone` when it cuts it, which ends this stream like a local client leaving.
 *
 * @example
 * reply.body.attach(new RelaySink(target));
 */
export class RelaySink implements SseSink {
  private ended = false;

  constructor(private readonly target: RelaySinkTarget) {}

  write(text: string): number {
    if (this.ended || this.target.gone) return Number.POSITIVE_INFINITY;
    this.target.push({ t: 'data', d: text });
    return 0;
  }

  queued(): number {
    return 0;
  }

  end(): void {
    this.finish('end');
  }

  abort(): void {
    this.finish('abort');
  }

  private finish(t: 'end' | 'abort'): void {
    if (this.ended) return;
    this.ended = true;
    if (!this.target.gone) this.target.push({ t });
  }
}
