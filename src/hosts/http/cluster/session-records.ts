/**
 * A legacy session's shared record (issue 12): created in the backplane's store before the
 * session is announced, naming this process as its owner; refreshed while the session lives
 * (throttled, never one store round trip per request); deleted when it ends. Since issue 28 it
 * also carries the session's snapshot (rewritten when the handshake, log level or subscriptions
 * change), so another process can adopt the session when this one is gone or hands it over.
 */
import type { Logger } from '../../../core/engine/connection.js';
import { StoreUnavailableError } from '../../../core/errors.js';
import { unrefTimer } from '../../../core/timers.js';
import { CLIENT_LIMIT } from '../client-quota.js';
import type { SessionCreateResult, SessionRecord } from '../session-store.js';
import type { HttpReply } from '../../../transports/http/server-wire/types.js';
import { storeUnavailableReply } from './tunnel-replies.js';
import type { Backplane } from './backplane.js';
import { parseRecordData, recordDataText, type RecordData } from './record-data.js';

/**
 * After the relay's connection was interrupted, how long a session without a record is answered
 * 503 rather than 404 (see the tunnel): its owner makes its records again when its own
 * connection is back, and the processes reconnect at slightly different times. For as long, an
 * owner that finds its own liveness key missing waits for it to come back (Redis restarted
 * empty) rather than take itself for read as dead.
 */
export const RECOVERY_MS = 5_000;
/** How often an owner looks for its own liveness key while it waits for it. */
const ALIVE_WAIT_MS = 100;

/** A record's lifetime when sessions never expire locally (`idleMs: Infinity`): one day. */
const MAX_TTL_MS = 24 * 60 * 60_000;

/**
 * The owner a record names, or `undefined` (no record, handed over, or data this version cannot read).
 *
 * @example
 * const owner = ownerOfRecord(await sessions.get(sessionId));
 */
export function ownerOfRecord(record: SessionRecord | undefined): string | undefined {
  return parseRecordData(record)?.owner ?? undefined;
}

/** What a session's record should say besides its owner (see {@link SessionRecords.follow}). */
export type RecordSource = () => Omit<RecordData, 'owner'>;

/** One record this process owns. */
interface Tracked {
  /** When it was last refreshed (0: due). */
  refreshedAt: number;
  /** The client key it was created with (a re-created record keeps counting). */
  readonly clientKey: string | undefined;
  /** Its data as last written by this process: what `swap` expects to find. */
  data: string;
  /** Where its principal and snapshot come from, once the session exists. */
  source: RecordSource | undefined;
  /** A data write is in flight; `dirty`: the state changed again meanwhile. */
  writing: boolean;
  dirty: boolean;
}

/**
 * This process's session records in the shared store.
 *
 * @example
 * const records = new SessionRecords(backplane, { idleMs, maxPerClient: 100 }, logger, () => tunnel.listen());
 * const refused = await records.admit(sessionId, clientKey); // 429, 503, or undefined: created
 */
export class SessionRecords {
  /** Record lifetime: twice the idle timeout, so a live session's record never lapses. */
  readonly ttlMs: number;
  private readonly refreshMs: number;
  private readonly tracked = new Map<string, Tracked>();
  /** When the relay last reported an interruption (see {@link reassert}). */
  private interruptedAt = -Infinity;
  private readonly pending = new Set<Promise<unknown>>();

  private readonly maxPerClient: number;
  /**
   * With `idleMs: Infinity` the idle sweep (which refreshes records of sessions holding only a
   * stream) never runs: this timer refreshes every record instead, only while there are any.
   */
  private readonly keepFresh: boolean;
  private freshTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly backplane: Backplane,
    limits: { idleMs: number; maxPerClient: number },
    private readonly logger: Logger,
    /** Resolves once this process listens on the relay (others can reach its sessions). */
    private readonly listening: () => Promise<void>,
    /** A refresh found the record gone or taken: the session must end here too. */
    private readonly lost: (id: string) => void = () => {},
  ) {
    this.ttlMs = Math.min(Math.max(2 * limits.idleMs, 1_000), MAX_TTL_MS);
    this.maxPerClient = limits.maxPerClient;
    this.refreshMs = Math.max(this.ttlMs / 8, 1);
    this.keepFresh = !Number.isFinite(limits.idleMs);
  }

  /** How many records this process owns. */
  get size(): number {
    return this.tracked.size;
  }

  /**
   * Create the record of a new session, or the refusal to answer: 429 when the client is at its
   * limit across all processes, 503 when the store or relay is unavailable (logged).
   */
  async admit(id: string, clientKey: string | undefined): Promise<HttpReply | undefined> {
    let result: SessionCreateResult;
    try {
      result = await this.claim(id, clientKey);
    } catch (error) {
      this.logger.error('could not create the shared session record', error);
      return storeUnavailableReply(error);
    }
    if (result === 'client-limit') return CLIENT_LIMIT;
    if (result === 'exists') throw new Error('generateId must return unique, visible-ASCII session ids');
    return undefined;
  }

  /**
   * Create the record of a new session owned by this process. Rejects with
   * `StoreUnavailableError` when the store or relay cannot be used: a session others cannot
   * route to must not be created.
   */
  private async claim(id: string, clientKey: string | undefined): Promise<SessionCreateResult> {
    const { relay, sessions } = this.backplane;
    await this.listening();
    // Others route to us only while we read as alive: check it before promising the session.
    if (!(await relay.alive(relay.nodeId))) throw new StoreUnavailableError('relay', 'alive');
    const data = recordDataText({ owner: relay.nodeId });
    const result = await sessions.create(
      { id, ...(clientKey === undefined ? {} : { clientKey }), data },
      { ttlMs: this.ttlMs, ...(clientKey === undefined ? {} : { maxPerClient: this.maxPerClient }) },
    );
    if (result === 'created') this.track(id, clientKey, data);
    return result;
  }

  /**
   * Adopt session `id` (issue 28): its record names an owner that is gone, or none (handed over).
   * Of processes racing, the one whose swap finds the data it read wins; `true` for it.
   */
  async adopt(record: SessionRecord, data: RecordData): Promise<boolean> {
    const { relay, sessions } = this.backplane;
    const mine = recordDataText({ ...data, owner: relay.nodeId });
    if (!(await sessions.swap(record.id, record.data, mine))) return false;
    this.track(record.id, record.clientKey, mine);
    // The dead owner stopped refreshing it: a full lifetime from now.
    this.run(sessions.touch(record.id, this.ttlMs), 'touch');
    return true;
  }

  private track(id: string, clientKey: string | undefined, data: string): void {
    this.tracked.set(id, {
      refreshedAt: Date.now(),
      clientKey,
      data,
      source: undefined,
      writing: false,
      dirty: false,
    });
    this.scheduleFresh();
  }

  /**
   * The session now exists: its principal and snapshot come from `source`, written again on each
   * {@link changed} (the snapshot lets another process carry the session on).
   */
  follow(id: string, source: RecordSource): void {
    const tracked = this.tracked.get(id);
    if (tracked) tracked.source = source;
  }

  /** The session's portable state changed: write it (one write at a time per record). */
  changed(id: string): void {
    const tracked = this.tracked.get(id);
    if (!tracked) return;
    if (tracked.writing) {
      tracked.dirty = true;
      return;
    }
    this.run(this.write(id, tracked), 'update');
  }

  private async write(id: string, tracked: Tracked): Promise<void> {
    tracked.writing = true;
    try {
      do {
        tracked.dirty = false;
        const data = recordDataText({ ...tracked.source?.(), owner: this.backplane.relay.nodeId });
        if (data === tracked.data) return;
        if (!(await this.backplane.sessions.swap(id, tracked.data, data))) {
          // Gone (a store that lost it: made again, as on refresh) or taken (adopted elsewhere).
          if (this.tracked.get(id) === tracked && !(await this.recreate(id, tracked))) this.gone(id);
          return;
        }
        tracked.data = data;
      } while (tracked.dirty && this.tracked.get(id) === tracked);
    } finally {
      tracked.writing = false;
    }
  }

  /**
   * Hand session `id` over (graceful drain): its record names no owner, so the next process
   * that gets a request for it adopts it at once. This process stops tracking it either way;
   * `false` when the record was gone or taken (the session then ends as a lost one would).
   */
  async handOver(id: string): Promise<boolean> {
    const tracked = this.tracked.get(id);
    if (!tracked) return false;
    this.untrack(id);
    const data = recordDataText({ ...tracked.source?.(), owner: null });
    try {
      return await this.backplane.sessions.swap(id, tracked.data, data);
    } catch (error) {
      this.logger.error('session record hand-over failed', error);
      return false;
    }
  }

  /** The session had activity: refresh its record unless that was done recently. */
  refresh(id: string): void {
    const tracked = this.tracked.get(id);
    const now = Date.now();
    if (tracked === undefined || now - tracked.refreshedAt < this.refreshMs) return;
    tracked.refreshedAt = now;
    this.run(
      this.backplane.sessions.touch(id, this.ttlMs).then(async (live) => {
        if (live || this.tracked.get(id) !== tracked) return;
        if (await this.recreate(id, tracked)) return;
        if (this.tracked.get(id) === tracked) this.gone(id);
      }),
      'refresh',
    );
  }

  /**
   * Deleted elsewhere (this process read as dead there), or taken by a process that adopted it:
   * the session is served elsewhere or 404 there, so it must not live on here either.
   */
  private gone(id: string): void {
    this.logger.debug(`session ${id}: its shared record was gone or taken; ending it here`);
    this.untrack(id);
    this.lost(id);
  }

  /**
   * The record was gone on refresh. A store that restarted without persistence, or evicted it,
   * loses records of live sessions: while this process reads itself alive, the record is made
   * again (true). False when this process reads as gone (others deleted its records) or the id
   * now names another owner. Just after an interruption a missing liveness key is waited for
   * (a restarted Redis lost it with the records). A store error rejects: the session is kept,
   * the next refresh retries.
   */
  private async recreate(id: string, tracked: Tracked): Promise<boolean> {
    const { relay, sessions } = this.backplane;
    if (!(await this.aliveSoon())) return false;
    const clientKey = tracked.clientKey;
    const data = recordDataText({ ...tracked.source?.(), owner: relay.nodeId });
    // No per-client limit: the session exists already; its record only comes back.
    const result = await sessions.create(
      { id, ...(clientKey === undefined ? {} : { clientKey }), data },
      { ttlMs: this.ttlMs },
    );
    if (result === 'created') {
      this.logger.debug(`session ${id}: its shared record was gone on refresh; made it again`);
      tracked.data = data;
      return true;
    }
    // 'exists': made again meanwhile; ours only if it names this process.
    return ownerOfRecord(await sessions.get(id)) === relay.nodeId;
  }

  /** The session ended: delete its record (errors logged; the record expires anyway). */
  release(id: string): void {
    if (!this.untrack(id)) return;
    this.run(this.backplane.sessions.delete(id), 'delete');
  }

  private untrack(id: string): boolean {
    if (!this.tracked.delete(id)) return false;
    if (this.tracked.size === 0) this.stopFresh();
    return true;
  }

  /**
   * The store may have lost records (Redis restarted without persistence): refresh every record
   * now, which makes the missing ones again. Skipped while this process cannot even read its own
   * liveness (the store is still down; the relay reports again when it is back).
   */
  reassert(): void {
    this.interruptedAt = Date.now();
    if (this.tracked.size === 0) return;
    this.run(this.reassertOnceAlive(), 'reassert');
  }

  private async reassertOnceAlive(): Promise<void> {
    if (!(await this.aliveSoon())) return;
    for (const [id, tracked] of [...this.tracked]) {
      tracked.refreshedAt = 0;
      this.refresh(id);
    }
  }

  /**
   * Whether this process reads as alive. Within {@link RECOVERY_MS} of an interruption it waits
   * for that: after Redis restarted empty the liveness key comes back with the relay's next beat,
   * which may come just after the records are looked at. A store error rejects.
   */
  private async aliveSoon(): Promise<boolean> {
    const { relay } = this.backplane;
    for (;;) {
      if (await relay.alive(relay.nodeId)) return true;
      if (Date.now() - this.interruptedAt >= RECOVERY_MS) return false;
      await new Promise((resolve) => unrefTimer(setTimeout(resolve, ALIVE_WAIT_MS)));
    }
  }

  /** @internal Refresh every record (sessions that never expire); runs from the fresh timer. */
  refreshAll(): void {
    this.freshTimer = undefined;
    for (const [id, tracked] of [...this.tracked]) {
      tracked.refreshedAt = 0; // due now, however recent the last activity
      this.refresh(id);
    }
    this.scheduleFresh();
  }

  private scheduleFresh(): void {
    if (!this.keepFresh || this.freshTimer !== undefined || this.tracked.size === 0) return;
    this.freshTimer = unrefTimer(setTimeout(refreshAll, this.refreshMs, this));
  }

  private stopFresh(): void {
    if (this.freshTimer !== undefined) clearTimeout(this.freshTimer);
    this.freshTimer = undefined;
  }

  /** Store operations still in flight (shutdown waits for them). */
  settled(): Promise<unknown> {
    return Promise.all(this.pending);
  }

  private run(work: Promise<unknown>, operation: string): void {
    const tracked = work.catch((error: unknown) =>
      this.logger.error(`session record ${operation} failed`, error),
    );
    this.pending.add(tracked);
    void tracked.finally(() => this.pending.delete(tracked));
  }
}

function refreshAll(records: SessionRecords): void {
  records.refreshAll();
}
