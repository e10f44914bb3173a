/**
 * Session routing between processes (issue 12). Each legacy session has one owner, the process
 * that answered its `initialize` (named in its shared record). A request for a session this
 * process does not hold is relayed, whole, to the owner and the answer relayed back; the owner
 * serves it through its normal handler core, so every lifecycle guarantee holds as on one process.
 */
import { unrefTimer, within } from '../../../core/timers.js';
import type { Logger } from '../../../core/engine/connection.js';
import type { FanoutMembership } from '../../../server/fanout.js';
import type { Connectable } from '../../../server/server.js';
import { StoreUnavailableError } from '../../../core/errors.js';
import type { OutputBudget } from '../../../transports/http/server-wire/output-budget.js';
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
import type { SendFault, TunnelLink } from './tunnel-link.js';
import { tooLargeReply } from '../../../transports/http/server-wire/request-checks.js';
import { DRAINING, MOVED, storeUnavailableReply } from './tunnel-replies.js';
import { parseRecordData, type RecordData } from './record-data.js';
import { RECOVERY_MS, type SessionRecords } from './session-records.js';
import type { SessionRecord } from '../session-store.js';
import type { SessionSnapshot } from '../../../server/session-snapshot.js';
import { messageLimit, parseTunnelMessage, peekMessage, type TunnelMessage } from './tunnel-wire.js';

const MOVED_HEADERS = Object.entries(MOVED.headers);

/** How many session → owner entries are kept (a miss costs one store read). */
const OWNER_CACHE_SIZE = 1_024;
/** Routing attempts per request: the first, then after a `MOVED`, a lost adoption race or a hand-over. */
const MAX_ROUTES = 3;
/**
 * How long, in relay checks, a request for a session whose owner stopped listening waits for the
 * owner to read as gone before it is adopted (503 after): 10 s with the default `relayCheckMs`,
 * twice the default liveness window (5 s).
 */
const ADOPT_WAIT_CHECKS = 10;
/** How often a draining process looks whether the calls it forwards are answered. */
const QUIESCE_POLL_MS = 10;

/**
 * What adoption needs from the session table (`SessionManager`).
 *
 * @example
 * new Tunnel({ ...options, adopter: manager });
 */
export interface Adopter {
  readonly records: SessionRecords | undefined;
  /** A drain began: this process adopts nothing and hands requests to peers. */
  readonly draining: boolean;
  canAdopt(): boolean;
  /** Open the session here from its record (after `records.adopt` won); undefined if shutting down. */
  adopt(record: SessionRecord, data: RecordData & { snapshot: SessionSnapshot }): unknown;
  handingOver(sessionId: string): Promise<boolean> | undefined;
}

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
  /** The session table, when sessions are on: it adopts sessions whose owner is gone (issue 28). */
  readonly adopter?: Adopter | undefined;
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
  /** Liveness checks of owners that stopped listening, one per owner (see `goneWithin`). */
  private readonly goneChecks = new Map<string, Promise<boolean>>();
  /** Adoptions in flight here (their swap may be in the store before the session is opened). */
  private readonly adopting = new Map<string, Promise<boolean>>();
  /** When the relay last reported a lost or restored connection (see `onInterrupted`). */
  private interruptedAt = -Infinity;
  /** Wake-ups of those checks' waits: `close` runs them, so no timer outlives the handler. */
  private readonly sleeping = new Set<() => void>();
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
   * served here (`undefined`: no record, this process is the owner, or it just adopted the
   * session; an exchange: the same, with the body the tunnel already read). 503 when the store or
   * relay is unavailable. No liveness round trip per request: a request that reaches nobody
   * checks it then, and the peer watch catches an owner that dies while it waits.
   *
   * Issue 28: a session whose owner is gone (or handed it over) is adopted here, if its record
   * carries a snapshot; a request that reached a process that no longer holds the session
   * (`MOVED`) is routed again from a fresh read of the record (at most {@link MAX_ROUTES} times).
   */
  async route(
    exchange: HttpExchange,
    sessionId: string,
    extra: HttpRequestExtra | undefined,
    attempt = 0,
  ): Promise<HttpReply | HttpExchange | undefined> {
    // Closing: nothing can be relayed any more; resent, the request reaches another process.
    if (this.closed) {
      exchange.discardBody();
      return DRAINING;
    }
    let found: { record: SessionRecord; data: RecordData } | undefined;
    try {
      await this.listen();
      found = await this.lookup(sessionId, attempt > 0);
    } catch (error) {
      this.logger.error('relay: routing a session request failed', error);
      exchange.discardBody();
      return storeUnavailableReply(error);
    }
    const again = attempt + 1 < MAX_ROUTES;
    if (found === undefined) return this.recovering(exchange) ?? (attempt === 0 ? undefined : exchange);
    const { data } = found;
    if (data.owner === this.nodeId) {
      // Being handed over right now (this process drains): route once that is written.
      // Or being adopted here by another request right now (its swap is in, the session not yet).
      const handing = this.adopting.get(sessionId) ?? this.options.adopter?.handingOver(sessionId);
      if (handing && again) {
        await handing;
        return this.route(exchange, sessionId, extra, attempt + 1);
      }
      return attempt === 0 ? undefined : exchange;
    }
    if (data.owner === null) return this.takeOver(exchange, sessionId, extra, found, attempt);
    const result = await this.forwarder.forward(exchange, data.owner, extra);
    if ('moved' in result) {
      this.owners.delete(sessionId);
      return again ? this.route(result.moved, sessionId, extra, attempt + 1) : result.moved;
    }
    if (!('unreached' in result)) return result;
    const unreached = result.unreached;
    // The owner was not listening. The record may have moved on already (handed over while this
    // process still had the old owner cached): route from it at once. Else the owner is gone for
    // good (adopt once it reads as gone) or between connections (503).
    let fresh = await this.freshOrReply(unreached, sessionId);
    if (fresh === undefined || 'status' in fresh) return fresh ?? unreached;
    if (fresh.data.owner !== data.owner && again) return this.route(unreached, sessionId, extra, attempt + 1);
    let gone: boolean;
    try {
      gone = await this.goneWithin(data.owner);
    } catch (error) {
      this.logger.error('relay: checking an unreachable owner failed', error);
      unreached.discardBody();
      return storeUnavailableReply(error);
    }
    if (!gone) {
      unreached.discardBody();
      return storeUnavailableReply(new StoreUnavailableError('relay', 'send'));
    }
    // Read again: another process may have adopted it while this one waited.
    fresh = await this.freshOrReply(unreached, sessionId);
    if (fresh === undefined || 'status' in fresh) return fresh ?? unreached;
    if (fresh.data.owner !== data.owner && again) return this.route(unreached, sessionId, extra, attempt + 1);
    return this.takeOver(result.unreached, sessionId, extra, fresh, attempt);
  }

  /**
   * The record read now (undefined: none, the session ended), or the 503 to answer when the store
   * fails or may still be missing records after an interruption.
   */
  private async freshOrReply(
    exchange: HttpExchange,
    sessionId: string,
  ): Promise<{ record: SessionRecord; data: RecordData } | HttpReply | undefined> {
    let found: { record: SessionRecord; data: RecordData } | undefined;
    try {
      found = await this.lookup(sessionId, true);
    } catch (error) {
      this.logger.error('relay: reading the record of a session whose owner is unreachable failed', error);
      exchange.discardBody();
      return storeUnavailableReply(error);
    }
    return found ?? this.recovering(exchange);
  }

  /**
   * A session without a record just after the relay's connection was interrupted: 503 (resent by
   * clients), not 404, since Redis may have restarted empty and its owner not made the record
   * again yet (it does once its own connection is back). Undefined otherwise: the session ended.
   */
  private recovering(exchange: HttpExchange): HttpReply | undefined {
    if (Date.now() - this.interruptedAt >= RECOVERY_MS) return undefined;
    exchange.discardBody();
    return storeUnavailableReply(new StoreUnavailableError('session store', 'recovering'));
  }

  /**
   * The session has no live owner. With a snapshot, adopt it (the one process whose swap wins;
   * a loser routes again to the winner); without one (its handshake never finished, or an older
   * version wrote it), it ends: its record is dropped and the request gets 404 here. A draining
   * process adopts nothing: it passes the request to a peer, which adopts.
   */
  private async takeOver(
    exchange: HttpExchange,
    sessionId: string,
    extra: HttpRequestExtra | undefined,
    found: { record: SessionRecord; data: RecordData },
    attempt: number,
  ): Promise<HttpReply | HttpExchange | undefined> {
    this.owners.delete(sessionId);
    const { record, data } = found;
    const adopter = this.options.adopter;
    const records = adopter?.records;
    if (!adopter || !records || data.snapshot === undefined) {
      this.ownerGone(sessionId);
      return exchange;
    }
    if (adopter.draining) return this.toPeer(exchange, extra);
    let won: boolean;
    try {
      const adopting = adopter.canAdopt() ? records.adopt(record, data) : Promise.resolve(false);
      this.adopting.set(sessionId, adopting);
      try {
        won = await adopting;
      } finally {
        if (this.adopting.get(sessionId) === adopting) this.adopting.delete(sessionId);
      }
    } catch (error) {
      this.logger.error('relay: adopting a session failed', error);
      exchange.discardBody();
      return storeUnavailableReply(error);
    }
    if (!won) {
      if (attempt + 1 < MAX_ROUTES) return this.route(exchange, sessionId, extra, attempt + 1);
      exchange.discardBody();
      return storeUnavailableReply(new StoreUnavailableError('session store', 'adopt'));
    }
    const adopted = adopter.adopt(record, { ...data, snapshot: data.snapshot });
    if (!adopted) {
      exchange.discardBody();
      return DRAINING;
    }
    return exchange;
  }

  /**
   * A relayed request for a session this process does not hold: adopt it here if its record
   * names no owner (a draining process handed it over, then passed the request on). False: the
   * caller answers `MOVED` (the forwarder routes again from the record).
   */
  async adoptHere(sessionId: string): Promise<boolean> {
    const adopter = this.options.adopter;
    const records = adopter?.records;
    if (!adopter || !records || adopter.draining) return false;
    try {
      const found = await this.lookup(sessionId, true);
      if (found?.data.owner !== null || found.data.snapshot === undefined || !adopter.canAdopt())
        return false;
      if (!(await records.adopt(found.record, found.data))) return false;
      return adopter.adopt(found.record, { ...found.data, snapshot: found.data.snapshot }) !== undefined;
    } catch (error) {
      this.logger.error('relay: adopting a session passed on by a draining process failed', error);
      return false;
    }
  }

  /**
   * A draining process passes a request it must not serve (a new session, or a session it would
   * have to adopt) to another live process; 503 + Retry-After when there is none.
   */
  async toPeer(exchange: HttpExchange, extra: HttpRequestExtra | undefined): Promise<HttpReply> {
    const relay = this.options.backplane.relay;
    let peers: string[] = [];
    if (this.closed) {
      exchange.discardBody();
      return DRAINING;
    }
    try {
      await this.listen();
      peers = (await relay.peers?.()) ?? [];
    } catch (error) {
      this.logger.error('relay: listing peers failed', error);
    }
    for (let tries = 0; tries < 3 && peers.length > 0; tries++) {
      const i = Math.floor(Math.random() * peers.length);
      const peer = peers[i]!;
      peers.splice(i, 1);
      const result = await this.forwarder.forward(exchange, peer, extra);
      if ('status' in result) return result;
      exchange = 'moved' in result ? result.moved : result.unreached;
    }
    exchange.discardBody();
    return DRAINING;
  }

  /**
   * Whether another process listens now. A relay that cannot say (no `peers`), or fails to, reads
   * as none: the caller then ends its sessions rather than hand them to nobody. (The Redis relay
   * bounds the command by its own timeout.)
   */
  async hasPeers(): Promise<boolean> {
    const relay = this.options.backplane.relay;
    if (relay.peers === undefined) return false;
    try {
      return (await relay.peers()).length > 0;
    } catch (error) {
      this.logger.error('relay: listing peers failed', error);
      return false;
    }
  }

  /**
   * Whether `owner` reads as gone within the relay's liveness window: it was not listening, so it
   * crashed (its liveness key lapses within the window) or is between connections (it stays).
   * One check per owner at a time, shared by every request that waits on it.
   */
  private goneWithin(owner: string): Promise<boolean> {
    let check = this.goneChecks.get(owner);
    if (!check) {
      check = this.pollGone(owner).finally(() => this.goneChecks.delete(owner));
      this.goneChecks.set(owner, check);
    }
    return check;
  }

  private async pollGone(owner: string): Promise<boolean> {
    const relay = this.options.backplane.relay;
    const checkMs = this.options.checkMs;
    for (let check = 0; ; check++) {
      if (!(await relay.alive(owner))) return true;
      if (this.closed || check >= ADOPT_WAIT_CHECKS) return false;
      await new Promise<void>((resolve) => {
        const wake = (): void => {
          clearTimeout(timer);
          this.sleeping.delete(wake);
          resolve();
        };
        const timer = unrefTimer(setTimeout(wake, checkMs));
        this.sleeping.add(wake);
      });
    }
  }

  send(
    to: string,
    message: TunnelMessage,
    onFail?: (error: unknown, why: SendFault) => void,
    onSent?: () => void,
  ): void {
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
        if (delivered) return onSent?.();
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
   * Draining, before `close`: wait (up to `deadlineMs`) for the POSTs this process forwards to
   * be answered, so a call that reached it just before it stopped is not cut; relayed GET
   * streams are left to `close` (their clients reconnect elsewhere).
   */
  async quiesce(deadlineMs: number): Promise<void> {
    const end = Date.now() + deadlineMs;
    while (this.forwarder.posts > 0 && Date.now() < end) {
      await new Promise((resolve) => unrefTimer(setTimeout(resolve, QUIESCE_POLL_MS)));
    }
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
    for (const wake of [...this.sleeping]) wake();
    this.fanout?.leave();
    // A listen still on its way must settle first, or it could outlive the close.
    await within(Promise.all([...this.sending, listening]), deadlineMs);
    // The relay bounds its own close by its command timeout; the caller's deadline comes first.
    await within(this.options.backplane.relay.close(), Math.max(0, end - Date.now()));
    // Answers to requests that were still on their way while it closed ("moved").
    await within(Promise.all(this.sending), Math.max(0, end - Date.now()));
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

  /**
   * The session's record and its parsed data: from the owner cache when it knows the owner
   * (`fresh`: never), else read. Undefined: no record, or one this version cannot read.
   */
  private async lookup(
    sessionId: string,
    fresh: boolean,
  ): Promise<{ record: SessionRecord; data: RecordData } | undefined> {
    const cached = fresh ? undefined : this.owners.get(sessionId);
    if (cached !== undefined)
      return { record: { id: sessionId, createdAt: 0, lastSeenAt: 0 }, data: { owner: cached } };
    const record = await this.options.backplane.sessions.get(sessionId);
    const data = parseRecordData(record);
    if (record === undefined || data === undefined) return undefined;
    if (data.owner !== null) this.owners.set(sessionId, data.owner);
    else this.owners.delete(sessionId);
    return { record, data };
  }

  private onMessage(from: string, text: string): void {
    const peek = peekMessage(text);
    if (text.length > messageLimit(peek?.t ?? '', this.options.maxBodyBytes))
      return this.oversized(from, peek);
    const message = parseTunnelMessage(text);
    if (!message) return this.logger.debug(`relay: ignored a malformed message from ${from}`);
    switch (message.t) {
      case 'open':
        // Closing: answered at once, while the relay is still open. Its sessions are gone (handed
        // over or ended), so the forwarder routes again from the record, or tries another peer.
        if (!this.closed) return this.inbound.open(from, message);
        return this.send(from, {
          t: 'head',
          x: message.x,
          s: MOVED.status,
          h: MOVED_HEADERS,
          b: MOVED.body as string,
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
    // Redis may have come back empty (no persistence): this process's records are made again at
    // once, not at their next refresh, and for a while a missing record is not taken for an ended
    // session (its owner may not have made it again yet): 503, which clients resend (issue 28).
    this.interruptedAt = Date.now();
    this.options.adopter?.records?.reassert();
  }
}
