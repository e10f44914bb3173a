/**
 * The forwarding side of the tunnel: this process received a request for a session another
 * process owns. It sends the whole request (`open`), then builds its client's reply from what the
 * owner sends back (`head`, `data`, `end`, `abort`), and tells the owner when the client left.
 */
import { ErrorCode } from '../../../../core/errors.js';
import type { OutputBudget } from '../output-budget.js';
import { emptyReply, httpError } from '../responses.js';
import type { HttpExchange, HttpReply, HttpRequestExtra } from '../types.js';
import { RelayedStream } from './relayed-stream.js';
import { FORWARDER_CLOSING, ownerStoppedReply, storeUnavailableReply } from './tunnel-replies.js';
import type { TunnelLink } from './tunnel-link.js';
import { encodeBody, jsonSafe, type HeadMessage, type OpenMessage } from './tunnel-wire.js';

const CLIENT_LEFT: HttpReply = Object.freeze(emptyReply(202));

interface Outgoing {
  readonly owner: string;
  readonly method: string;
  /** The body as text, for the failure reply (one error per request in it). */
  readonly body: string | undefined;
  /** Set until the head arrived. */
  resolve: ((reply: HttpReply) => void) | undefined;
  stream: RelayedStream | undefined;
  unwatch: () => void;
}

/**
 * Relayed exchanges this process forwards, by exchange id.
 *
 * @example
 * const reply = await forwarder.forward(exchange, ownerId, extra);
 */
export class Forwarder {
  private readonly outgoing = new Map<string, Outgoing>();
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

  /** Relay `exchange` to `owner` and answer with what it replies. Never rejects. */
  async forward(
    exchange: HttpExchange,
    owner: string,
    extra: HttpRequestExtra | undefined,
  ): Promise<HttpReply> {
    const method = exchange.method;
    let body: { b?: string; b64?: string } = {};
    if (method === 'POST') {
      const read = await this.readBody(exchange);
      if ('status' in read) return read;
      body = read;
    } else {
      exchange.discardBody();
    }
    const x = String(++this.seq);
    const h: [string, string][] = [];
    exchange.headers().forEach((value, name) => h.push([name, value]));
    const host = exchange.host();
    if (exchange.header('host') === null && host !== null) h.push(['host', host]);
    const open: OpenMessage = { t: 'open', x, m: method, h, ...body };
    const authInfo = jsonSafe(extra?.authInfo);
    if (extra?.remoteAddress !== undefined || authInfo !== undefined) {
      open.e = { remoteAddress: extra?.remoteAddress, authInfo };
    }
    return new Promise<HttpReply>((resolve) => {
      const entry: Outgoing = { owner, method, body: body.b, resolve, stream: undefined, unwatch: () => {} };
      this.outgoing.set(x, entry);
      entry.unwatch = this.link.watch.watch(owner, () => this.fail(x));
      this.link.send(owner, open, (error) => this.openFailed(x, error));
      // After `open`: a client already gone makes this run at once, and `gone` must follow `open`.
      exchange.onClientGone(() => this.clientLeft(x));
    });
  }

  head(from: string, message: HeadMessage): void {
    const entry = this.from(from, message.x);
    const resolve = entry?.resolve;
    if (!entry || !resolve) return this.link.logger.debug(`relay: head for unknown exchange ${message.x}`);
    entry.resolve = undefined;
    const headers = Object.freeze(Object.fromEntries(message.h));
    if (message.b !== undefined) {
      this.finish(message.x, entry);
      resolve({ status: message.s, headers, body: message.b ?? undefined });
      return;
    }
    entry.stream = new RelayedStream(this.budget, () => this.clientLeft(message.x));
    resolve({ status: message.s, headers, body: entry.stream });
  }

  data(from: string, x: string, text: string): void {
    const stream = this.from(from, x)?.stream;
    if (stream) stream.data(text);
    else this.link.logger.debug(`relay: data for unknown exchange ${x}`);
  }

  /** `end` or `abort` from the owner. */
  ended(from: string, x: string, aborted: boolean): void {
    const entry = this.from(from, x);
    if (!entry?.stream) return this.link.logger.debug(`relay: end for unknown exchange ${x}`);
    this.finish(x, entry);
    if (aborted) entry.stream.abort();
    else entry.stream.end();
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

  /** The relay refused the request itself: nothing reached the owner, the relay is the fault. */
  private openFailed(x: string, error: unknown): void {
    const entry = this.outgoing.get(x);
    const resolve = entry?.resolve;
    if (!entry || !resolve) return;
    entry.resolve = undefined;
    this.finish(x, entry);
    resolve(storeUnavailableReply(error));
  }

  /** Fail every exchange in flight (the relay lost messages, or this process is closing). */
  failAll(): void {
    for (const x of [...this.outgoing.keys()]) this.fail(x);
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

  private async readBody(exchange: HttpExchange): Promise<{ b?: string; b64?: string } | HttpReply> {
    const limit = this.maxBodyBytes;
    const declared = exchange.header('content-length');
    if (declared !== null && Number(declared) > limit) {
      exchange.discardBody();
      return tooLarge(limit);
    }
    const bytes = await exchange.readBody(limit);
    if (bytes === 'too-large') return tooLarge(limit);
    if (bytes === 'unreadable')
      return httpError(400, ErrorCode.InvalidRequest, 'Could not read the request body');
    return encodeBody(bytes);
  }
}

/** Same reply as a local POST over the limit. */
function tooLarge(limit: number): HttpReply {
  return httpError(413, ErrorCode.InvalidRequest, `Request body larger than ${limit} bytes`);
}
