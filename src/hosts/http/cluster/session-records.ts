/**
 * A legacy session's shared record (issue 12): created in the backplane's store before the
 * session is announced, naming this process as its owner; refreshed while the session lives
 * (throttled, never one store round trip per request); deleted when it ends.
 */
import type { Logger } from '../../../core/engine/connection.js';
import { StoreUnavailableError } from '../../../core/errors.js';
import { unrefTimer } from '../../../core/timers.js';
import { CLIENT_LIMIT } from '../client-quota.js';
import type { SessionCreateResult, SessionRecord } from '../session-store.js';
import type { HttpReply } from '../../../transports/http/server-wire/types.js';
import { storeUnavailableReply } from './tunnel-replies.js';
import type { Backplane } from './backplane.js';

/** A record's lifetime when sessions never expire locally (`idleMs: Infinity`): one day. */
const MAX_TTL_MS = 24 * 60 * 60_000;

/**
 * The owner a record names, or `undefined` (no record, or data this version cannot read).
 *
 * @example
 * const owner = ownerOfRecord(await sessions.get(sessionId));
 */
export function ownerOfRecord(record: SessionRecord | undefined): string | undefined {
  if (record?.data === undefined) return undefined;
  try {
    const owner = (JSON.parse(record.data) as { owner?: unknown }).owner;
    return typeof owner === 'string' ? owner : undefined;
  } catch {
    return undefined;
  }
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
  private readonly refreshed = new Map<string, number>();
  /** The client key each record was created with (a re-created record keeps counting). */
  private readonly keys = new Map<string, string | undefined>();
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
    /** A refresh found the record gone: the session must end here too. */
    private readonly lost: (id: string) => void = () => {},
  ) {
    this.ttlMs = Math.min(Math.max(2 * limits.idleMs, 1_000), MAX_TTL_MS);
    this.maxPerClient = limits.maxPerClient;
    this.refreshMs = Math.max(this.ttlMs / 8, 1);
    this.keepFresh = !Number.isFinite(limits.idleMs);
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
    const result = await sessions.create(
      {
        id,
        ...(clientKey === undefined ? {} : { clientKey }),
        data: JSON.stringify({ owner: relay.nodeId }),
      },
      { ttlMs: this.ttlMs, ...(clientKey === undefined ? {} : { maxPerClient: this.maxPerClient }) },
    );
    if (result === 'created') {
      this.refreshed.set(id, Date.now());
      this.keys.set(id, clientKey);
      this.scheduleFresh();
    }
    return result;
  }

  /** The session had activity: refresh its record unless that was done recently. */
  refresh(id: string): void {
    const last = this.refreshed.get(id);
    const now = Date.now();
    if (last === undefined || now - last < this.refreshMs) return;
    this.refreshed.set(id, now);
    this.track(
      this.backplane.sessions.touch(id, this.ttlMs).then(async (live) => {
        if (live || !this.refreshed.has(id)) return;
        if (await this.recreate(id)) return;
        if (!this.refreshed.has(id)) return;
        // Deleted elsewhere (this process read as dead there), or taken: the session is 404
        // everywhere else, so it must not live on here either.
        this.logger.debug(`session ${id}: its shared record was gone on refresh; ending it`);
        this.refreshed.delete(id);
        this.keys.delete(id);
        if (this.refreshed.size === 0) this.stopFresh();
        this.lost(id);
      }),
      'refresh',
    );
  }

  /**
   * The record was gone on refresh. A store that restarted without persistence, or evicted it,
   * loses records of live sessions: while this process reads itself alive, the record is made
   * again (true). False when this process reads as gone (others deleted its records) or the id
   * now names another owner. A store error rejects: the session is kept, the next refresh retries.
   */
  private async recreate(id: string): Promise<boolean> {
    const { relay, sessions } = this.backplane;
    if (!(await relay.alive(relay.nodeId))) return false;
    const clientKey = this.keys.get(id);
    // No per-client limit: the session exists already; its record only comes back.
    const result = await sessions.create(
      {
        id,
        ...(clientKey === undefined ? {} : { clientKey }),
        data: JSON.stringify({ owner: relay.nodeId }),
      },
      { ttlMs: this.ttlMs },
    );
    if (result === 'created') {
      this.logger.debug(`session ${id}: its shared record was gone on refresh; made it again`);
      return true;
    }
    // 'exists': made again meanwhile; ours only if it names this process.
    return ownerOfRecord(await sessions.get(id)) === relay.nodeId;
  }

  /** The session ended: delete its record (errors logged; the record expires anyway). */
  release(id: string): void {
    this.keys.delete(id);
    if (!this.refreshed.delete(id)) return;
    if (this.refreshed.size === 0) this.stopFresh();
    this.track(this.backplane.sessions.delete(id), 'delete');
  }

  /** @internal Refresh every record (sessions that never expire); runs from the fresh timer. */
  refreshAll(): void {
    this.freshTimer = undefined;
    for (const id of [...this.refreshed.keys()]) {
      this.refreshed.set(id, 0); // due now, however recent the last activity
      this.refresh(id);
    }
    this.scheduleFresh();
  }

  private scheduleFresh(): void {
    if (!this.keepFresh || this.freshTimer !== undefined || this.refreshed.size === 0) return;
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

  private track(work: Promise<unknown>, operation: string): void {
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
