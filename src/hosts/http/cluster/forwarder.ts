/**
 * The forwarding side of the tunnel: this process received a request for a session another
 * process owns. It sends the whole request (`open`), then builds its client's reply from what the
 * owner sends back (`head`, `data`, `end`, `abort`), and tells the owner when the client left.
 */
import type { OutputBudget } from '../../../transports/http/server-wire/output-budget.js';
import { emptyReply } from '../../../transports/http/server-wire/responses.js';
import type {
  HttpExchange,
  HttpReply,
  HttpRequestExtra,
} from '../../../transports/http/server-wire/types.js';
import {
  readBodyBytes,
  tooLargeReply as tooLarge,
} from '../../../transports/http/server-wire/request-checks.js';
import { RelayedStream } from './relayed-stream.js';
import { ReplayExchange } from './replay-exchange.js';
import {
  FORWARDER_CLOSING,
  MOVED_HEADER,
  ownerStoppedReply,
  storeUnavailableReply,
} from './tunnel-replies.js';
import type { SendFault, TunnelLink } from './tunnel-link.js';
import { encodeBody, jsonSafe, type HeadMessage, type OpenMessage } from './tunnel-wire.js';

const CLIENT_LEFT: HttpReply = Object.freeze(emptyReply(202));

/**
 * The `open` reached nobody (the owner was not listening): the exchange, body included, for the
 * caller to serve here if the owner turns out to be gone.
 */
export interface Unreached {
  readonly unreached: HttpExchange;
}

/** The process sent to no longer holds the session (`MOVED`): route again with the exchange. */
export interface Moved {
  readonly moved: HttpExchange;
}

interface Outgoing {
  readonly owner: string;
  readonly method: string;
  /** The body as text, for the failure reply (one error per request in it). */
  readonly body: string | undefined;
  /** The request as this process read it, in case it must be served here after all. */
  readonly replay: HttpExchange;
  /** Set until the reply is complete enough to answer (its head, or its whole JSON body). */
  resolve: ((reply: HttpReply | Unreached | Moved) => void) | undefined;
  stream: RelayedStream | undefined;
  /** A JSON body arriving in pieces: its head, and the pieces so far. */
  json: { head: HeadMessage; parts: string[] } | undefined;
  unwatch: () => void;
  /** The relay said the `open` reached the owner. */
  opened: boolean;
  /** The owner read as gone before that was known (see {@link Forwarder.ownerLost}). */
  lost: boolean;
}

/**
 * Relayed exchanges this process forwards, by exchange id.
 *
 * @example
 * const reply = await forwarder.forward(exchange, ownerId, extra);
 */
export class Forwarder {
  private readonly outgoing = new Map<string, Outgoing>();
  /** Random per start: a process restarted under the same node id never reuses an old id. */
  private readonly prefix = globalThis.crypto.randomUUID().slice(0, 8);
  private seq = 0;

  constructor(
    private readonly link: TunnelLink,
    private readonly budget: OutputBudget,
    private readonly maxBodyBytes: number,
  ) {}

  /** Exchanges in flight (waiting for a head, or streaming). */
  get size(): number {
    return this.outgoing.size;
  }

  /** POSTs in flight: calls a draining process lets finish before it closes (GET streams it cuts). */
  get posts(): number {
    let count = 0;
    for (const entry of this.outgoing.values()) if (entry.method === 'POST') count++;
    return count;
  }

  /** Relay `exchange` to `owner` and answer with what it replies. Never rejects. */
  async forward(
    exchange: HttpExchange,
    owner: string,
    extra: HttpRequestExtra | undefined,
  ): Promise<HttpReply | Unreached | Moved> {
    const method = exchange.method;
    let body: { b?: string; b64?: string } = {};
    let bytes: Uint8Array = new Uint8Array(0);
    if (method === 'POST') {
      const read = await this.readBody(exchange);
      if ('status' in read) return read;
      bytes = read;
      body = encodeBody(read);
    } else {
      exchange.discardBody();
    }
    const x = `${this.prefix}.${++this.seq}`;
    const h: [string, string][] = [];
    exchange.headers().forEach((value, name) => h.push([name, value]));
    const host = exchange.host();
    if (exchange.header('host') === null && host !== null) h.push(['host', host]);
    const open: OpenMessage = { t: 'open', x, m: method, h, ...body };
    const authInfo = jsonSafe(extra?.authInfo);
    if (extra?.remoteAddress !== undefined || authInfo !== undefined) {
      open.e = { remoteAddress: extra?.remoteAddress, authInfo };
    }
    return new Promise<HttpReply | Unreached | Moved>((resolve) => {
      const entry: Outgoing = {
        owner,
        method,
        body: body.b,
        replay: new ReplayExchange(exchange, bytes),
        resolve,
        stream: undefined,
        json: undefined,
        unwatch: () => {},
        opened: false,
        lost: false,
      };
      this.outgoing.set(x, entry);
      entry.unwatch = this.link.watch.watch(owner, () => this.ownerLost(x));
      this.link.send(
        owner,
        open,
        (error, why) => this.openFailed(x, error, why),
        () => this.opened(x),
      );
      // After `open`: a client already gone makes this run at once, and `gone` must follow `open`.
      exchange.onClientGone(() => this.clientLeft(x));
    });
  }

  head(from: string, message: HeadMessage): void {
    const entry = this.from(from, message.x);
    const resolve = entry?.resolve;
    if (!entry || !resolve || entry.json) return this.unknown(from, message.x, 'head');
    if (message.j === 1) {
      entry.json = { head: message, parts: [] };
      return;
    }
    entry.resolve = undefined;
    const headers = Object.freeze(Object.fromEntries(message.h));
    if (message.s === 421 && headers[MOVED_HEADER] !== undefined) {
      this.finish(message.x, entry);
      resolve({ moved: entry.replay });
      return;
    }
    if (message.b !== undefined) {
      this.finish(message.x, entry);
      resolve({ status: message.s, headers, body: message.b ?? undefined });
      return;
    }
    entry.stream = new RelayedStream(this.budget, () => this.clientLeft(message.x));
    resolve({ status: message.s, headers, body: entry.stream });
  }

  data(from: string, x: string, text: string): void {
    const entry = this.from(from, x);
    if (entry?.json) entry.json.parts.push(text);
    else if (entry?.stream) entry.stream.data(text);
    else this.unknown(from, x, 'data');
  }

  /** `end` (with its piece count `n` after a chunked JSON body) or `abort` from the owner. */
  ended(from: string, x: string, aborted: boolean, n?: number): void {
    const entry = this.from(from, x);
    if (!entry) return this.link.logger.debug(`relay: end for unknown exchange ${x}`);
    // Before the reply is complete, an abort means the owner dropped the exchange (and an end
    // without a head is a broken reply): the client is answered as if the owner stopped.
    if (!entry.stream && (aborted || !entry.json)) return this.fail(x);
    // A JSON body missing a piece (lost in the medium) is a broken reply, never a cut one. (No
    // count: an owner of an earlier version.)
    if (entry.json && n !== undefined && n !== entry.json.parts.length) {
      this.link.logger.debug(`relay: exchange ${x} ended after ${entry.json.parts.length} of ${n} pieces`);
      return this.fail(x);
    }
    const json = entry.json;
    const resolve = entry.resolve;
    this.finish(x, entry);
    if (json && resolve) {
      entry.resolve = undefined;
      const headers = Object.freeze(Object.fromEntries(json.head.h));
      resolve({ status: json.head.s, headers, body: json.parts.join('') });
    } else if (aborted) entry.stream?.abort();
    else entry.stream?.end();
  }

  /**
   * The owner is gone (or unreachable): before the head, the client gets the owner-stopped
   * reply; after it, its stream is cut.
   */
  fail(x: string, reason?: string): void {
    const entry = this.outgoing.get(x);
    if (!entry) return;
    this.finish(x, entry);
    const resolve = entry.resolve;
    entry.resolve = undefined;
    if (resolve) resolve(ownerStoppedReply(entry.method, entry.body, reason));
    else entry.stream?.abort();
  }

  /**
   * The peer watch read the owner as gone. Once the `open` is known to have reached it, the
   * exchange died with it; before that, the relay's answer decides: "nobody" (the owner died
   * before it got the request) lets the request be routed again, and its session adopted, rather
   * than fail a call no process ever saw (a race the crash test met at the end of the liveness
   * window).
   */
  private ownerLost(x: string): void {
    const entry = this.outgoing.get(x);
    if (!entry) return;
    if (entry.opened) this.fail(x);
    else entry.lost = true;
  }

  /** The relay says the `open` of `x` reached its owner: if the owner read as gone meanwhile, `x` died with it. */
  private opened(x: string): void {
    const entry = this.outgoing.get(x);
    if (!entry) return;
    entry.opened = true;
    if (entry.lost) this.fail(x);
  }

  /** A message for `x` from its owner was refused (too large): fail it, and the owner drops it. */
  refuse(from: string, x: string): void {
    if (!this.from(from, x)) return;
    this.fail(x);
    this.link.send(from, { t: 'gone', x });
  }

  /**
   * The relay did not deliver the request: nothing reached the owner. Not listening: the caller
   * decides from the owner's liveness (`Unreached`); refused: the relay is the fault (503).
   */
  private openFailed(x: string, error: unknown, why: SendFault): void {
    const entry = this.outgoing.get(x);
    const resolve = entry?.resolve;
    if (!entry || !resolve) return;
    entry.resolve = undefined;
    this.finish(x, entry);
    if (why === 'nobody') resolve({ unreached: entry.replay });
    else if (why === 'too-large') resolve(tooLarge(this.maxBodyBytes));
    else resolve(storeUnavailableReply(error));
  }

  /** The relay lost messages: fail every exchange in flight, and their owners drop them. */
  failAll(): void {
    for (const [x, entry] of [...this.outgoing]) {
      this.link.send(entry.owner, { t: 'gone', x });
      this.fail(x);
    }
  }

  /** This process is closing: the owners drop what they still serve for us. */
  abandonAll(): void {
    for (const [x, entry] of [...this.outgoing]) {
      this.link.send(entry.owner, { t: 'gone', x });
      this.fail(x, FORWARDER_CLOSING);
    }
  }

  /** Exchange `x`, if `from` is the process it was sent to (anything else is ignored). */
  private from(from: string, x: string): Outgoing | undefined {
    const entry = this.outgoing.get(x);
    return entry?.owner === from ? entry : undefined;
  }

  /**
   * A reply for an exchange this process no longer has (it failed it, or its client left and the
   * `gone` was lost): say `gone`, or the owner keeps serving it (a GET stream would stay open
   * there, and the session's next GET would get 409).
   */
  private unknown(from: string, x: string, what: string): void {
    this.link.logger.debug(`relay: ${what} for unknown exchange ${x}`);
    this.link.send(from, { t: 'gone', x });
  }

  private clientLeft(x: string): void {
    const entry = this.outgoing.get(x);
    if (!entry) return;
    this.finish(x, entry);
    // Nobody reads this reply any more; it only settles the host's call.
    entry.resolve?.(CLIENT_LEFT);
    entry.resolve = undefined;
    entry.stream?.gone();
    this.link.send(entry.owner, { t: 'gone', x });
  }

  private finish(x: string, entry: Outgoing): void {
    this.outgoing.delete(x);
    entry.unwatch();
  }

  private readBody(exchange: HttpExchange): Promise<Uint8Array | HttpReply> {
    return readBodyBytes(exchange, this.maxBodyBytes);
  }
}
