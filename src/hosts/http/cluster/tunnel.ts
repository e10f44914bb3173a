/**
 * Session routing between processes (issue 12). Each legacy session has one owner, the process
 * that answered its `initialize` (named in its shared record). A request for a session this
 * process does not hold is relayed, whole, to the owner and the answer relayed back; the owner
 * serves it through its normal handler core, so every lifecycle guarantee holds as on one process.
 */
import { within } from '../../../core/timers.js';
import type { Logger } from '../../../core/engine/connection.js';
import type { FanoutMembership } from '../../../server/fanout.js';
import type { Connectable } from '../../../server/server.js';
import { StoreUnavailableError } from '../../../core/errors.js';
import type { OutputBudget } from '../../../transports/http/server-wire/output-budget.js';
import { SHUTTING_DOWN } from '../../../transports/http/server-wire/responses.js';
import type {
  HttpExchange,
  HttpReply,
  HttpRequestExtra,
} from '../../../transports/http/server-wire/types.js';
import type { Backplane } from './backplane.js';
import { Forwarder } from './forwarder.js';
import { Inbound } from './inbound.js';
import { OwnerCache } from './owner-cache.js';
import { PeerWatch } from './peer-watch.js';
import { RelayJoining } from './relay-joining.js';
import type { RelayListener } from './relay.js';
import { ownerOfRecord } from './session-records.js';
import type { SendFault, TunnelLink } from './tunnel-link.js';
import { tooLargeReply } from '../../../transports/http/server-wire/request-checks.js';
import { storeUnavailableReply } from './tunnel-replies.js';
import { messageLimit, parseTunnelMessage, peekMessage, type TunnelMessage } from './tunnel-wire.js';

const SHUTTING_DOWN_HEADERS = Object.entries(SHUTTING_DOWN.headers);

/** How many session → owner entries are kept (a miss costs one store read). */
const OWNER_CACHE_SIZE = 1_024;

/**
 * What the tunnel needs from its handler.
 *
 * @example
 * new Tunnel({ backplane, logger, budget, maxBodyBytes, checkMs: 1_000, serve });
 */
export interface TunnelOptions {
  readonly backplane: Backplane;
  readonly logger: Logger;
  readonly budget: OutputBudget;
  readonly maxBodyBytes: number;
  /** How often peers of open relayed exchanges are checked for liveness. */
  readonly checkMs: number;
  /** The served server: it joins the deployment's notification fan-out over the relay. */
  readonly target: Connectable;
  /** The handler core without routing: how the owner serves a relayed exchange. */
  readonly serve: (exchange: HttpExchange, extra: HttpRequestExtra | undefined) => Promise<HttpReply>;
}

/**
 * One handler's end of the relay: routing (`route`), both sides of relayed exchanges, and the
 * relay's lifetime (listening from creation, closed last in `close`).
 *
 * @example
 * const reply = await tunnel.route(exchange, sessionId, extra); // undefined: serve locally
 */
export class Tunnel implements TunnelLink {
  readonly watch: PeerWatch;
  readonly logger: Logger;
  private readonly forwarder: Forwarder;
  private readonly inbound: Inbound;
  private readonly owners = new OwnerCache(OWNER_CACHE_SIZE);
  private readonly sending = new Set<Promise<void>>();
  private readonly joining: RelayJoining;
  private closed = false;
  /** Server-wide notifications to and from the other processes (see `Server.joinFanout`). */
  private readonly fanout: FanoutMembership | undefined;
  private readonly listener: RelayListener = {
    message: (from, text) => this.onMessage(from, text),
    broadcast: (from, text) => this.onBroadcast(from, text),
    interrupted: () => this.onInterrupted(),
  };

  constructor(private readonly options: TunnelOptions) {
    this.logger = options.logger;
    this.watch = new PeerWatch(options.backplane.relay, options.checkMs, options.logger);
    this.forwarder = new Forwarder(this, options.budget, options.maxBodyBytes);
    this.inbound = new Inbound(this, options.serve);
    const relay = options.backplane.relay;
    this.fanout = options.target.joinFanout?.(
      { publish: (message) => relay.broadcast(message) },
      this.logger,
    );
    this.joining = new RelayJoining(relay, this.listener, this.logger);
    this.joining.start();
  }

  get nodeId(): string {
    return this.options.backplane.relay.nodeId;
  }

  /** Listening on the relay (see {@link RelayJoining}). */
  listen(): Promise<void> {
    return this.joining.listen();
  }

  /**
   * Where a request for `sessionId` (not held here) goes: relayed to its owner (the reply), or
   * to be served here (`undefined`: no record, or this process is the owner; an exchange: the
   * owner is gone, and the exchange, body already read, gets the usual 404 here). 503 when the
   * store or relay is unavailable. No liveness round trip per request: a request that reaches
   * nobody checks it then, and the peer watch catches an owner that dies while it waits.
   */
  async route(
    exchange: HttpExchange,
    sessionId: string,
    extra: HttpRequestExtra | undefined,
  ): Promise<HttpReply | HttpExchange | undefined> {
    let owner: string | undefined;
    try {
      await this.listen();
      owner = await this.ownerOf(sessionId);
    } catch (error) {
      this.logger.error('relay: routing a session request failed', error);
      exchange.discardBody();
      return storeUnavailableReply(error);
    }
    if (owner === undefined || owner === this.nodeId) return undefined;
    const result = await this.forwarder.forward(exchange, owner, extra);
    if (!('unreached' in result)) return result;
    // The owner was not listening: gone for good (404 here), or between connections (503).
    try {
      if (await this.options.backplane.relay.alive(owner)) {
        return storeUnavailableReply(new StoreUnavailableError('relay', 'send'));
      }
    } catch (error) {
      this.logger.error('relay: checking an unreachable owner failed', error);
      return storeUnavailableReply(error);
    }
    this.ownerGone(sessionId);
    return result.unreached;
  }

  send(to: string, message: TunnelMessage, onFail?: (error: unknown, why: SendFault) => void): void {
    const text = JSON.stringify(message);
    if (text.length > messageLimit(message.t, this.options.maxBodyBytes)) {
      this.logger.debug(`relay: "${message.t}" of ${text.length} characters is over the bound; not sent`);
      onFail?.(new StoreUnavailableError('relay', 'send: message too large'), 'too-large');
      return;
    }
    let sent: Promise<boolean>;
    try {
      sent = this.options.backplane.relay.send(to, text);
    } catch (error) {
      sent = Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    const tracked = sent.then(
      (delivered) => {
        if (delivered) return;
        this.logger.debug(`relay: "${message.t}" reached nobody (${to} is not listening)`);
        onFail?.(new StoreUnavailableError('relay', `send to ${to}: not listening`), 'nobody');
      },
      (error: unknown) => {
        this.logger.error(`relay: sending "${message.t}" failed`, error);
        onFail?.(error, 'refused');
      },
    );
    this.sending.add(tracked);
    void tracked.finally(() => this.sending.delete(tracked));
  }

  /**
   * After the sessions ended (their last chunks are sent): fail what this process still
   * forwards, wait for the sends in flight, then close the relay; all within `deadlineMs`.
   */
  async close(deadlineMs: number): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const end = Date.now() + deadlineMs;
    const listening = this.joining.stop();
    this.forwarder.abandonAll();
    this.inbound.loseAll();
    this.watch.stop();
    this.fanout?.leave();
    // A listen still on its way must settle first, or it could outlive the close.
    await within(Promise.all([...this.sending, listening]), deadlineMs);
    // The relay bounds its own close by its command timeout; the caller's deadline comes first.
    await within(this.options.backplane.relay.close(), Math.max(0, end - Date.now()));
  }

  /**
   * The session's owner is gone, and the session with it: drop its record now rather than at its
   * expiry, so it no longer counts against its client's session limit.
   */
  private ownerGone(sessionId: string): void {
    this.owners.delete(sessionId);
    this.options.backplane.sessions.delete(sessionId).catch((error: unknown) => {
      this.logger.error('relay: deleting the record of a session whose owner is gone failed', error);
    });
  }

  private async ownerOf(sessionId: string): Promise<string | undefined> {
    const cached = this.owners.get(sessionId);
    if (cached !== undefined) return cached;
    const owner = ownerOfRecord(await this.options.backplane.sessions.get(sessionId));
    if (owner !== undefined) this.owners.set(sessionId, owner);
    return owner;
  }

  private onMessage(from: string, text: string): void {
    const peek = peekMessage(text);
    if (text.length > messageLimit(peek?.t ?? '', this.options.maxBodyBytes))
      return this.oversized(from, peek);
    const message = parseTunnelMessage(text);
    if (!message) return this.logger.debug(`relay: ignored a malformed message from ${from}`);
    switch (message.t) {
      case 'open':
        // Closing: answered at once, while the relay is still open (the core would say 503 too).
        if (!this.closed) return this.inbound.open(from, message);
        return this.send(from, {
          t: 'head',
          x: message.x,
          s: SHUTTING_DOWN.status,
          h: SHUTTING_DOWN_HEADERS,
          b: SHUTTING_DOWN.body as string,
        });
      case 'gone':
        return this.inbound.gone(from, message.x);
      case 'head':
        return this.forwarder.head(from, message);
      case 'data':
        return this.forwarder.data(from, message.x, message.d);
      case 'end':
        return this.forwarder.ended(from, message.x, false, message.n);
      case 'abort':
        return this.forwarder.ended(from, message.x, true);
    }
  }

  /** A message over its bound: not parsed; its exchange fails on both sides. */
  private oversized(from: string, peek: { t: string; x: string } | undefined): void {
    this.logger.debug(`relay: ignored a message over the size bound from ${from} (${peek?.t ?? 'unknown'})`);
    // An open over the bound carries a body over this process's limit: the 413 a local request
    // over the limit gets (its forwarder may allow larger bodies), not an unexplained failure.
    if (peek?.t === 'open') {
      const reply = tooLargeReply(this.options.maxBodyBytes);
      const h = Object.entries(reply.headers);
      this.send(from, { t: 'head', x: peek.x, s: reply.status, h, b: reply.body as string });
    } else if (peek?.t === 'head' || peek?.t === 'data') this.forwarder.refuse(from, peek.x);
  }

  /** Server-wide notifications raised on another process: delivered here only, never republished. */
  private onBroadcast(_from: string, text: string): void {
    this.fanout?.receive(text);
  }

  /** The medium may have lost messages both ways: nothing in flight can be trusted to finish. */
  private onInterrupted(): void {
    this.logger.error('relay: connection interrupted; failing relayed exchanges in flight', undefined);
    this.forwarder.failAll();
    this.inbound.loseAll();
    this.inbound.retryAborts();
  }
}
