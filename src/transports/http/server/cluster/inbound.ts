/**
 * The owner's side of the tunnel: requests other processes relayed for sessions this process
 * owns. Each runs through the handler core exactly like a local request (the full pipeline:
 * Host/Origin, auth, version checks, session ownership); its reply goes back as `head`, then
 * `data` chunks and `end` / `abort` for an event stream (or a large JSON body).
 */
import type { HttpExchange, HttpReply, HttpRequestExtra } from '../types.js';
import { InboundExchange, RelaySink } from './inbound-exchange.js';
import type { TunnelLink } from './tunnel-link.js';
import { pieces, PIECE_CHARS, type OpenMessage } from './tunnel-wire.js';

interface Incoming {
  readonly from: string;
  readonly x: string;
  readonly exchange: InboundExchange;
  gone: boolean;
  unwatch: () => void;
}

/**
 * Relayed exchanges this process serves, by (forwarder, exchange id).
 *
 * @example
 * inbound.open(from, message); // serves it, replies over the relay
 * inbound.gone(from, message.x); // the forwarder's client left
 */
export class Inbound {
  private readonly incoming = new Map<string, Incoming>();

  constructor(
    private readonly link: TunnelLink,
    /** The handler core, without routing (the owner serves, it never relays again). */
    private readonly serve: (
      exchange: HttpExchange,
      extra: HttpRequestExtra | undefined,
    ) => Promise<HttpReply>,
  ) {}

  get size(): number {
    return this.incoming.size;
  }

  open(from: string, message: OpenMessage): void {
    const key = keyOf(from, message.x);
    if (this.incoming.has(key)) return this.link.logger.debug(`relay: duplicate exchange ${message.x}`);
    let exchange: InboundExchange;
    try {
      exchange = new InboundExchange(message);
    } catch {
      return this.link.logger.debug(`relay: ignored exchange ${message.x} with malformed headers`);
    }
    const entry: Incoming = { from, x: message.x, exchange, gone: false, unwatch: () => {} };
    this.incoming.set(key, entry);
    entry.unwatch = this.link.watch.watch(from, () => this.lost(key));
    // A throw past the core (a body source refusing its sink) must not become an unhandled
    // rejection: the exchange is dropped, and its forwarder told.
    this.run(from, message, entry, key).catch((error: unknown) => {
      this.link.logger.error('relay: serving a relayed exchange failed', error);
      this.drop(entry);
    });
  }

  /** The forwarder's client left (or its stream was cut there). */
  gone(from: string, x: string): void {
    const key = keyOf(from, x);
    if (!this.incoming.has(key)) return this.link.logger.debug(`relay: gone for unknown exchange ${x}`);
    this.lost(key);
  }

  /**
   * Drop every exchange (the relay may have lost messages, or this process is closing): each
   * forwarder is told (`abort`, best effort) so its client is answered rather than left waiting.
   */
  loseAll(): void {
    for (const entry of [...this.incoming.values()]) this.drop(entry);
  }

  /** Drop one exchange this side: its forwarder gets `abort`, the exchange sees its client leave. */
  private drop(entry: Incoming): void {
    const key = keyOf(entry.from, entry.x);
    if (this.incoming.get(key) !== entry) return;
    if (!entry.gone) this.link.send(entry.from, { t: 'abort', x: entry.x });
    this.lost(key);
  }

  private async run(from: string, message: OpenMessage, entry: Incoming, key: string): Promise<void> {
    const extra: HttpRequestExtra | undefined = message.e && {
      ...(message.e.remoteAddress === undefined ? {} : { remoteAddress: message.e.remoteAddress }),
      ...(message.e.authInfo === undefined ? {} : { authInfo: message.e.authInfo }),
    };
    const reply = await this.serve(entry.exchange, extra);
    const x = message.x;
    const h = Object.entries(reply.headers);
    const fail = (): void => this.lost(key);
    if (typeof reply.body !== 'object') {
      this.finish(key, entry);
      if (entry.gone) return;
      const body = reply.body ?? null;
      if (body === null || body.length <= PIECE_CHARS) {
        this.link.send(from, { t: 'head', x, s: reply.status, h, b: body });
        return;
      }
      // A large JSON body goes in pieces: no relay message grows with the reply.
      this.link.send(from, { t: 'head', x, s: reply.status, h, j: 1 });
      for (const d of pieces(body)) this.link.send(from, { t: 'data', x, d });
      this.link.send(from, { t: 'end', x });
      return;
    }
    if (!entry.gone) this.link.send(from, { t: 'head', x, s: reply.status, h }, fail);
    reply.body.attach(
      new RelaySink({
        get gone() {
          return entry.gone;
        },
        push: (piece) => {
          if (piece.t !== 'data') {
            this.finish(key, entry);
            this.link.send(from, { t: piece.t, x }, fail);
            return;
          }
          for (const d of pieces(piece.d)) this.link.send(from, { t: 'data', x, d }, fail);
        },
      }),
    );
  }

  /** The client at the other end is gone: the exchange sees its client leave. */
  private lost(key: string): void {
    const entry = this.incoming.get(key);
    if (!entry) return;
    entry.gone = true;
    this.finish(key, entry);
    entry.exchange.clientGone();
  }

  private finish(key: string, entry: Incoming): void {
    if (this.incoming.get(key) === entry) this.incoming.delete(key);
    entry.unwatch();
  }
}

function keyOf(from: string, x: string): string {
  return `${from}\n${x}`;
}
