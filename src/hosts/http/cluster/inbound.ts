/**
 * The owner's side of the tunnel: requests other processes relayed for sessions this process
 * owns. Each runs through the handler core exactly like a local request (the full pipeline:
 * Host/Origin, auth, version checks, session ownership); its reply goes back as `head`, then
 * `data` chunks and `end` / `abort` for an event stream (or a large JSON body).
 */
import type {
  HttpExchange,
  HttpReply,
  HttpRequestExtra,
} from '../../../transports/http/server-wire/types.js';
import { InboundExchange, RelaySink } from './inbound-exchange.js';
import type { SendFault, TunnelLink } from './tunnel-link.js';
import { pieces, PIECE_CHARS, type OpenMessage } from './tunnel-wire.js';

interface Incoming {
  readonly from: string;
  readonly x: string;
  readonly exchange: InboundExchange;
  gone: boolean;
  /** An `abort` was sent (or tried) after one of its sends failed: once is enough. */
  aborted: boolean;
  unwatch: () => void;
}

/**
 * How many exchanges whose `abort` the relay refused are remembered, to abort again once the
 * relay reconnects. Bounded: an outage with more than this many leaves the rest to the
 * forwarders' own `interrupted()` and peer watch.
 */
const RETRY_ABORTS = 256;

/**
 * Relayed exchanges this process serves, by (forwarder, exchange id).
 *
 * @example
 * inbound.open(from, message); // serves it, replies over the relay
 * inbound.gone(from, message.x); // the forwarder's client left
 */
export class Inbound {
  private readonly incoming = new Map<string, Incoming>();
  /** Exchanges dropped while the relay refused their `abort` (forwarder → exchange ids). */
  private readonly unaborted = new Map<string, { from: string; x: string }>();

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
    const entry: Incoming = {
      from,
      x: message.x,
      exchange,
      gone: false,
      aborted: false,
      unwatch: () => {},
    };
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

  /**
   * The relay reconnected (`interrupted()`): abort again the exchanges whose `abort` it refused
   * while it was failing, so their forwarders' clients are answered. A forwarder ignores an
   * abort for an exchange it no longer has.
   */
  retryAborts(): void {
    const retry = [...this.unaborted.values()];
    this.unaborted.clear();
    for (const { from, x } of retry) this.abort(from, x);
  }

  /** Drop one exchange this side: its forwarder gets `abort`, the exchange sees its client leave. */
  private drop(entry: Incoming): void {
    const key = keyOf(entry.from, entry.x);
    if (this.incoming.get(key) !== entry) return;
    if (!entry.gone && !entry.aborted) {
      entry.aborted = true;
      this.abort(entry.from, entry.x);
    }
    this.lost(key);
  }

  /**
   * One of the owner's sends for this exchange failed: the forwarder may never see the reply
   * complete, so it is told `abort` (best effort) and the exchange here sees its client leave.
   */
  private sendFailed(entry: Incoming, why: SendFault): void {
    if (entry.aborted) return;
    entry.aborted = true;
    // Nobody listening there: the forwarder is between connections or gone, and its own
    // `interrupted()` or peer watch fails the exchange; an abort would reach nobody either.
    if (why !== 'nobody') this.abort(entry.from, entry.x);
    this.lost(keyOf(entry.from, entry.x));
  }

  /** Send `abort`; when the relay refuses it, remember the exchange to abort it again later. */
  private abort(from: string, x: string): void {
    this.link.send(from, { t: 'abort', x }, (_error, why) => {
      if (why !== 'refused') return;
      const key = keyOf(from, x);
      this.unaborted.delete(key);
      this.unaborted.set(key, { from, x });
      // Oldest first out: the bound holds however long the outage lasts.
      if (this.unaborted.size > RETRY_ABORTS) this.unaborted.delete(this.unaborted.keys().next().value!);
    });
  }

  private async run(from: string, message: OpenMessage, entry: Incoming, key: string): Promise<void> {
    const extra: HttpRequestExtra | undefined = message.e && {
      ...(message.e.remoteAddress === undefined ? {} : { remoteAddress: message.e.remoteAddress }),
      ...(message.e.authInfo === undefined ? {} : { authInfo: message.e.authInfo }),
    };
    const reply = await this.serve(entry.exchange, extra);
    const x = message.x;
    const h = Object.entries(reply.headers);
    const fail = (_error: unknown, why: SendFault): void => this.sendFailed(entry, why);
    if (typeof reply.body !== 'object') {
      this.finish(key, entry);
      if (entry.gone) return;
      const body = reply.body ?? null;
      if (body === null || body.length <= PIECE_CHARS) {
        this.link.send(from, { t: 'head', x, s: reply.status, h, b: body }, fail);
        return;
      }
      // A large JSON body goes in pieces: no relay message grows with the reply. `end` says how
      // many, so a piece the relay lost without saying so fails the reply rather than cut it.
      this.link.send(from, { t: 'head', x, s: reply.status, h, j: 1 }, fail);
      let n = 0;
      for (const d of pieces(body)) {
        n++;
        this.link.send(from, { t: 'data', x, d }, fail);
      }
      this.link.send(from, { t: 'end', x, n }, fail);
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
