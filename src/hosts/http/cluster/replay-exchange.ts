/**
 * An exchange whose body the forwarder already read, for serving it here after all (its relayed
 * `open` reached nobody and the owner is gone: the local pipeline answers, usually with 404).
 */
import type { BodyFault, HttpExchange } from '../../../transports/http/server-wire/types.js';

/**
 * `exchange` with its body replaced by `bytes` (already read; the original is drained).
 *
 * @example
 * return new ReplayExchange(exchange, bytes); // served locally as if never read
 */
export class ReplayExchange implements HttpExchange {
  constructor(
    private readonly exchange: HttpExchange,
    private readonly bytes: Uint8Array,
  ) {}

  get method(): string {
    return this.exchange.method;
  }

  header(name: string): string | null {
    return this.exchange.header(name);
  }

  host(): string | null {
    return this.exchange.host();
  }

  headers(): Headers {
    return this.exchange.headers();
  }

  readBody(limit: number): Promise<Uint8Array | BodyFault> {
    return Promise.resolve(this.bytes.byteLength > limit ? 'too-large' : this.bytes);
  }

  discardBody(): void {
    // Read already: nothing left to drain.
  }

  onClientGone(callback: () => void): void {
    this.exchange.onClientGone(callback);
  }
}
