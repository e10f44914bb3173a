/**
 * The session table: creation (with the per-client limit), lookup, LRU order by tier, idle
 * expiry, eviction and shutdown, all ending a session through one path
 * ({@link SessionManager.terminate}).
 */
import type { AuthInfo } from '../../core/auth.js';
import { unrefTimer, within } from '../../core/timers.js';
import type { ConnectionOptions, Logger } from '../../core/engine/connection.js';
import type { Connectable } from '../../server/server.js';
import { ownedBy } from './auth-gate.js';
import type { EventStore } from '../../transports/http/server-wire/event-store.js';
import type { HttpExchange, HttpReply, HttpRequestExtra } from '../../transports/http/server-wire/types.js';
import { ClientQuota, clientLimitsOf, CLIENT_LIMIT, SESSIONS_FULL } from './client-quota.js';
import {
  DEFAULT_IDLE_MS,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_RECENT_WORK_MS,
  outputBudgetOf,
  type HttpHandlerOptions,
  type SessionEndReason,
} from './options.js';
import { SHUTTING_DOWN } from '../../transports/http/server-wire/responses.js';
import { SessionSlot, SessionTiers, Tier } from './session-tiers.js';
import { HttpServerTransport, type TransportHost } from './session-transport.js';
import type { KeepAlive } from '../../transports/http/server-wire/keep-alive.js';
import type { SessionRecords } from './cluster/session-records.js';
import type { RecordData } from './cluster/record-data.js';
import type { SessionRecord } from './session-store.js';
import { restoreSession, snapshotOf, type SessionSnapshot } from '../../server/session-snapshot.js';

const VISIBLE_ASCII = /^[\x21-\x7e]+$/;

function randomId(): string {
  return globalThis.crypto.randomUUID();
}

/**
 * Owns every session of one handler. Sessions are found by id in a `Map` and kept in
 * least-recently-used order per tier ({@link SessionTiers}), so eviction takes the first unused
 * handshake-only entry and the sweeper stops at the first recent one. One unref'd timer sweeps,
 * and only while sessions exist.
 *
 * @example
 * const manager = new SessionManager(server, options, store, keepAlive, logger, 1_000);
 * const created = manager.create(exchange, extra); // a transport, or the refusal to answer
 */
export class SessionManager implements TransportHost {
  private readonly sessions = new Map<string, SessionSlot>();
  private readonly tiers = new SessionTiers();
  private readonly quota: ClientQuota;
  private readonly recentWorkMs: number;
  /** Stateless exchanges in flight, so shutdown can reach them too. */
  private readonly stateless = new Set<HttpServerTransport>();
  private readonly idleMs: number;
  private readonly max: number;
  private readonly generateId: () => string;
  private readonly connection: ConnectionOptions | undefined;
  private sweepTimer: ReturnType<typeof setTimeout> | undefined;
  /** Deleted sessions whose ends wait for their DELETE's reply to go out (see `terminate`). */
  private held: HttpServerTransport[] | undefined;
  private releaseTimer: ReturnType<typeof setTimeout> | undefined;
  private accepting = true;
  /** Set once a drain began: new sessions and adoptions go to peers. */
  draining = false;
  /** Sessions whose hand-over is being written: a request for one waits for it, then routes. */
  private readonly handing = new Map<string, Promise<boolean>>();
  readonly retryMs: number;
  readonly budget: ReturnType<typeof outputBudgetOf>;
  /** With a backplane: the shared records of this process's sessions. */
  records: SessionRecords | undefined;

  constructor(
    private readonly target: Connectable,
    private readonly options: HttpHandlerOptions,
    readonly store: EventStore | undefined,
    readonly keepAlive: KeepAlive | undefined,
    readonly logger: Logger,
    retryMs: number,
  ) {
    const sessions = options.sessions || {};
    this.idleMs = Math.max(1, sessions.idleMs ?? DEFAULT_IDLE_MS);
    this.max = Math.max(1, sessions.max ?? DEFAULT_MAX_SESSIONS);
    this.generateId = sessions.generateId ?? randomId;
    this.quota = new ClientQuota(clientLimitsOf(options));
    this.recentWorkMs = Math.max(0, sessions.recentWorkMs ?? DEFAULT_RECENT_WORK_MS);
    this.connection = options.connection;
    this.retryMs = retryMs;
    this.budget = outputBudgetOf(options);
  }

  /** Live stateful sessions. */
  get size(): number {
    return this.sessions.size;
  }

  /** Live sessions plus stateless exchanges in flight. */
  get total(): number {
    return this.sessions.size + this.stateless.size;
  }

  /** Whether a live session with this id is held here (not marked as used). */
  has(sessionId: string): boolean {
    return this.sessions.has(sessionId);
  }

  /**
   * The live session `sessionId` names, if it belongs to `auth`'s principal (see `ownedBy`), else
   * undefined (unknown, expired, deleted, someone else's). Only a session the request belongs to
   * is marked as used: a request refused with 404 must not keep another principal's session
   * alive, nor move it in the eviction order.
   */
  find(sessionId: string, auth: AuthInfo | undefined): HttpServerTransport | undefined {
    const slot = this.sessions.get(sessionId);
    if (!slot || !ownedBy(slot.transport, auth)) return undefined;
    this.touched(slot.transport);
    return slot.transport;
  }

  /**
   * A new session for the `initialize` request of `exchange`, or the refusal to answer: 503 when
   * shutting down or full with nothing evictable, 429 when the client is over its limit. With a
   * backplane the session's shared record is created first (503 when the store is unavailable).
   */
  async create(
    exchange: HttpExchange,
    extra: HttpRequestExtra | undefined,
  ): Promise<HttpServerTransport | HttpReply> {
    if (!this.accepting) return SHUTTING_DOWN;
    const key = this.quota.keyOf(exchange, extra);
    if (!this.quota.admits(key)) return CLIENT_LIMIT;
    if (this.sessions.size >= this.max && !this.evictOne()) return SESSIONS_FULL;
    const sessionId = this.generateId();
    if (!VISIBLE_ASCII.test(sessionId) || this.sessions.has(sessionId)) {
      throw new Error('generateId must return unique, visible-ASCII session ids');
    }
    if (this.records) {
      const refused = await this.records.admit(sessionId, key);
      if (refused) return refused;
      if (!this.accepting || this.sessions.has(sessionId)) {
        // Shutdown began while the record was written: it must not outlive this refusal.
        this.records.release(sessionId);
        return SHUTTING_DOWN;
      }
    }
    return this.open(sessionId, key);
  }

  /** Whether a session could be adopted now (accepting, and room for it). */
  canAdopt(): boolean {
    return this.accepting && (this.sessions.size < this.max || this.evictOne());
  }

  /**
   * Adopt session `record.id` (issue 28): its owner is gone or handed it over, and this process
   * won the record (`SessionRecords.adopt`). The session continues here as the client left it:
   * same id, version, capabilities, log level and subscriptions, owned by the same principal.
   * Undefined when shutdown began meanwhile (the record is released).
   */
  adopt(
    record: SessionRecord,
    data: RecordData & { snapshot: SessionSnapshot },
  ): HttpServerTransport | undefined {
    if (!this.accepting || this.sessions.has(record.id)) {
      // Given back as found, so another process adopts it (never deleted: the session lives on).
      void this.records?.handOver(record.id);
      return undefined;
    }
    const transport = this.open(record.id, record.clientKey, data);
    this.logger.debug(`session ${record.id}: adopted (previous owner ${data.owner ?? 'handed it over'})`);
    return transport;
  }

  private open(sessionId: string, key: string | undefined, adopted?: RecordData): HttpServerTransport {
    const transport = new HttpServerTransport(this, sessionId);
    const slot = new SessionSlot(transport, key);
    this.sessions.set(sessionId, slot);
    this.quota.add(key);
    this.tiers.touch(slot);
    this.attach(transport);
    const session = transport.session;
    session?.onInitialized(() => {
      if (this.slotOf(transport) === slot) this.tiers.promote(slot, Tier.Ready);
    });
    if (adopted?.snapshot && session) {
      transport.owner = adopted.principal;
      // The previous owner's stream ids stay in the store; this process's must not repeat them.
      transport.streamPrefix = `${globalThis.crypto.randomUUID().slice(0, 8)}.`;
      restoreSession(session, adopted.snapshot);
      transport.handshakeAnswered(false);
      // Messages for the GET stream are stored until the client's GET comes back (it resumes).
      if (transport.resumable) transport.standalone.primed = true;
    }
    const records = this.records;
    if (records && session) {
      // Only with a backplane: the record follows the session's portable state.
      records.follow(sessionId, () => ({ principal: transport.owner, snapshot: snapshotOf(session) }));
      session.onStateChange = () => records.changed(sessionId);
    }
    this.scheduleSweep();
    this.notify(() => this.options.onSessionStart?.(sessionId));
    return transport;
  }

  /** A connection for one stateless exchange (it closes itself after its response). */
  createStateless(): HttpServerTransport | undefined {
    if (!this.accepting) return undefined;
    const transport = new HttpServerTransport(this, undefined);
    this.stateless.add(transport);
    this.attach(transport);
    return transport;
  }

  private attach(transport: HttpServerTransport): void {
    try {
      transport.session = this.target.connect(transport, this.connection);
    } catch (error) {
      this.forget(transport, 'closed');
      void transport.close();
      throw error;
    }
  }

  /**
   * The one way a session ends (DELETE, expiry, eviction, shutdown): forget it at once (later
   * requests get 404), then close its connection — the engine aborts its handlers and fails its
   * pending requests at once, answers each unanswered request with one `-32000`, and closes the
   * transport, which ends every stream.
   *
   * A DELETE's reply goes out before those answers and stream ends: they wait for a macrotask, by
   * when the host has written the reply. The client that sent the DELETE may still be reading its
   * own streams meanwhile: python-sdk 1.29 sends its DELETE after its session object stopped
   * reading and cancels its stream readers only once the DELETE is answered, and it logs an error
   * for every event that arrives in between. Another client waiting on a stream still gets its
   * answer a moment later instead of none (docs/http.md, "Lifecycle: how sessions end"); the handlers are
   * aborted before the reply either way, so the client that sent the DELETE knows their fate.
   */
  terminate(transport: HttpServerTransport, reason: SessionEndReason): Promise<void> {
    if (transport.ending) return transport.session?.closed ?? Promise.resolve();
    this.forget(transport, reason);
    if (reason === 'deleted') this.holdOutput(transport);
    return transport.session ? transport.session.close() : transport.close();
  }

  /** Hold `transport`'s writes until the current DELETE reply is out (see `terminate`). */
  private holdOutput(transport: HttpServerTransport): void {
    transport.holdOutput();
    (this.held ??= []).push(transport);
    this.releaseTimer ??= unrefTimer(setTimeout(releaseHeld, 0, this));
  }

  /** @internal Let the held sessions write their ends; returns them. Runs from the release timer. */
  releaseHeld(): readonly HttpServerTransport[] {
    if (this.releaseTimer !== undefined) clearTimeout(this.releaseTimer);
    this.releaseTimer = undefined;
    const held = this.held ?? [];
    this.held = undefined;
    for (const transport of held) transport.releaseOutput();
    return held;
  }

  /**
   * Graceful drain (issue 28, with a backplane): take no new session here, hand each session
   * over once it is idle (nothing running, nothing pending), so its next request is adopted by a
   * peer at once; running requests get until `deadlineMs`, then whatever is left ends as in
   * {@link shutdown}. Requests for sessions being handed over wait for it (see `handingOver`).
   */
  async drain(deadlineMs: number): Promise<void> {
    const end = Date.now() + deadlineMs;
    this.draining = true;
    this.accepting = false;
    this.stopSweep();
    // 2026-07-28 listens end now with their final result (their clients listen again elsewhere);
    // 2026-07-28 calls in flight, like sessions' calls, may finish until the deadline.
    for (const transport of this.stateless) void transport.session?.endSubscriptions().catch(() => undefined);
    while ((this.sessions.size > 0 || this.stateless.size > 0) && Date.now() < end) {
      for (const slot of [...this.sessions.values()]) {
        if (isIdle(slot.transport)) void this.handOver(slot.transport);
      }
      if (this.sessions.size === 0 && this.stateless.size === 0) break;
      await new Promise((resolve) => unrefTimer(setTimeout(resolve, DRAIN_POLL_MS)));
    }
    await within(Promise.all(this.handing.values()), Math.max(0, end - Date.now()));
    // Past the deadline, what is left ends as in a plain shutdown.
    await this.shutdown(Math.max(0, end - Date.now()));
  }

  /**
   * Draining: a request of `transport`'s session ended. Checked once what the end writes is out
   * (a macrotask later), and handed over at once if idle: the client's next request, which
   * cannot come before it read this answer, then finds the session handed over rather than
   * busy again here (polling alone can miss that moment under a steady load).
   */
  requestEnded(transport: HttpServerTransport): void {
    if (!this.draining) return;
    unrefTimer(
      setTimeout(() => {
        if (this.draining && isIdle(transport)) void this.handOver(transport);
      }, 0),
    );
  }

  /** The hand-over of `sessionId` in flight, if any. */
  handingOver(sessionId: string): Promise<boolean> | undefined {
    return this.handing.get(sessionId);
  }

  /**
   * Hand one idle session over: its record names no owner (with its snapshot), this process
   * forgets it at once and closes it without touching its stored streams; its GET stream ends,
   * so the client reconnects, reaches a peer, which adopts the session and resumes the stream.
   */
  private async handOver(transport: HttpServerTransport): Promise<void> {
    // Once: the drain's poll and a request's end may both find it idle.
    if (!this.slotOf(transport)) return;
    const sessionId = transport.sessionId!;
    const records = this.records!;
    const written = records.handOver(sessionId); // stops tracking the record now: `forget` keeps it
    this.handing.set(sessionId, written);
    transport.keepStreams = true;
    this.forget(transport, 'handed-over');
    const handed = await written;
    this.handing.delete(sessionId);
    if (!handed) this.logger.debug(`session ${sessionId}: its record was gone or taken at hand-over`);
    await (transport.session ? transport.session.close() : transport.close());
  }

  /** End every session and stateless exchange; resolves within `deadlineMs`. */
  async shutdown(deadlineMs: number): Promise<void> {
    const end = Date.now() + deadlineMs;
    this.accepting = false;
    this.stopSweep();
    // Sessions deleted just now end first (their DELETE replies are out by now, or never will be).
    const deleted = this.releaseHeld().map((transport) => transport.session?.closed);
    const all = [...[...this.sessions.values()].map((slot) => slot.transport), ...this.stateless];
    const closing = Promise.all([
      ...deleted,
      ...all.map((transport) => this.terminate(transport, 'shutdown')),
    ]);
    const finished = await within(closing, deadlineMs);
    // Past the deadline, cut the streams; the engines finish their teardown on their own.
    if (!finished) for (const transport of all) void transport.close();
    this.keepAlive?.stop();
    if (this.records) await within(this.records.settled(), Math.max(0, end - Date.now()));
  }

  /**
   * The shared record of session `sessionId` is gone (another process deleted it: this process
   * read as dead to it). Others now answer 404 for it, so this process ends it too.
   */
  recordLost(sessionId: string): void {
    const slot = this.sessions.get(sessionId);
    if (slot) void this.terminate(slot.transport, 'expired');
  }

  touched(transport: HttpServerTransport): void {
    transport.lastSeen = Date.now();
    const slot = this.slotOf(transport);
    if (slot) this.tiers.touch(slot);
    if (slot && this.records) this.records.refresh(slot.transport.sessionId!);
  }

  /**
   * A request other than `initialize` was routed to `transport`: a session that makes calls is
   * protected from eviction while active (see `sessions.recentWorkMs`). `ping` is not work.
   */
  called(transport: HttpServerTransport, method: string): void {
    if (method === 'ping' || method === 'initialize') return;
    const slot = this.slotOf(transport);
    if (slot) this.tiers.promote(slot, Tier.Working);
  }

  private slotOf(transport: HttpServerTransport): SessionSlot | undefined {
    const sessionId = transport.sessionId;
    const slot = sessionId === undefined ? undefined : this.sessions.get(sessionId);
    return slot?.transport === transport ? slot : undefined;
  }

  transportClosed(transport: HttpServerTransport): void {
    if (!transport.ending) this.forget(transport, 'closed');
  }

  initializeFailed(transport: HttpServerTransport): void {
    // Deferred: this runs inside the engine's write of the failed initialize response.
    queueMicrotask(() => void this.terminate(transport, 'closed'));
  }

  private forget(transport: HttpServerTransport, reason: SessionEndReason): void {
    transport.ending = true;
    transport.endReason = reason;
    const sessionId = transport.sessionId;
    if (sessionId === undefined) {
      this.stateless.delete(transport);
      return;
    }
    const slot = this.slotOf(transport);
    if (slot) {
      this.sessions.delete(sessionId);
      this.tiers.remove(slot);
      this.quota.release(slot.key);
      this.records?.release(sessionId);
    }
    if (this.sessions.size === 0) this.stopSweep();
    this.notify(() => this.options.onSessionEnd?.(sessionId, reason));
  }

  /** Evict one session that is not in use, lowest tier first (see {@link SessionTiers}). */
  private evictOne(): boolean {
    const victim = this.tiers.evictable(Date.now() - this.recentWorkMs);
    if (!victim) return false;
    void this.terminate(victim.transport, 'evicted');
    return true;
  }

  private scheduleSweep(): void {
    if (this.sweepTimer !== undefined || !Number.isFinite(this.idleMs)) return;
    const interval = Math.min(Math.max(this.idleMs / 2, 1), 60_000);
    this.sweepTimer = unrefTimer(setTimeout(sweep, interval, this));
  }

  private stopSweep(): void {
    if (this.sweepTimer !== undefined) clearTimeout(this.sweepTimer);
    this.sweepTimer = undefined;
  }

  /** @internal Expire idle sessions; runs from the sweep timer. */
  sweep(): void {
    this.sweepTimer = undefined;
    for (const slot of this.tiers.expired(Date.now() - this.idleMs)) {
      void this.terminate(slot.transport, 'expired');
    }
    // A session with an open stream makes no requests to refresh its record: do it here.
    if (this.records) {
      for (const [id, slot] of this.sessions) if (slot.transport.attached > 0) this.records.refresh(id);
    }
    if (this.sessions.size > 0) this.scheduleSweep();
  }

  private notify(callback: () => void): void {
    try {
      callback();
    } catch (error) {
      this.logger.error('session callback failed', error);
    }
  }
}

/** How often a drain looks for sessions that became idle. */
const DRAIN_POLL_MS = 20;

/** Nothing running or pending on the session: it can move without anyone noticing. */
function isIdle(transport: HttpServerTransport): boolean {
  const connection = transport.session?.connection;
  return (
    !transport.busy &&
    (connection === undefined ||
      (connection.inflightCount === 0 && connection.queuedCount === 0 && connection.pendingCount === 0))
  );
}

function sweep(manager: SessionManager): void {
  manager.sweep();
}

function releaseHeld(manager: SessionManager): void {
  manager.releaseHeld();
}
