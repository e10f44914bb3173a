/**
 * Shared legacy-session records (issue 12): what several processes must agree on about a session
 * (that it exists, which process holds its connection, its per-client count), so any of them can
 * route a request for it.
 */

/**
 * One session as every process sees it. Times are ms since the epoch on the store's clock.
 *
 * @example
 * const record = await sessions.get(id); if (record) console.log(record.clientKey, record.lastSeenAt);
 */
export interface SessionRecord {
  id: string;
  /** The per-client limit key the session counts against, if any. */
  clientKey?: string;
  /** Opaque text (JSON) the server keeps with the session: negotiated version, capabilities, ... */
  data?: string;
  createdAt: number;
  lastSeenAt: number;
}

/**
 * What `create` decided: made, refused because the id is taken, or because the client is at its
 * limit.
 *
 * @example
 * if ((await sessions.create({ id }, { ttlMs })) === 'client-limit') return tooManyRequests();
 */
export type SessionCreateResult = 'created' | 'exists' | 'client-limit';

/**
 * Storage of session records shared by processes. Every operation is atomic on its record: of
 * concurrent `create`s of one id exactly one gets `'created'`; of concurrent `delete`s exactly one
 * gets `true` (so exactly one process runs the session's end); `touch` never brings back a
 * record that expired or was deleted. A record not touched for its `ttlMs` expires.
 *
 * @example
 * const sessions: SessionStore = new InMemorySessionStore();
 * await sessions.create({ id: 's1', clientKey: '10.0.0.1' }, { ttlMs: 30 * 60_000, maxPerClient: 100 });
 */
export interface SessionStore {
  /**
   * Create the record, unless the id exists or (with `maxPerClient` and a `clientKey`) the client
   * already has that many live sessions; the check and the insert are one step.
   */
  create(
    record: { id: string; clientKey?: string; data?: string },
    options: { ttlMs: number; maxPerClient?: number },
  ): Promise<SessionCreateResult>;
  /** The live record, or `undefined` (never created, expired or deleted). */
  get(id: string): Promise<SessionRecord | undefined>;
  /** Mark activity: `lastSeenAt` = now, expiry = now + `ttlMs`. `false` when the record is gone. */
  touch(id: string, ttlMs: number): Promise<boolean>;
  /** Remove the record; `true` for the one caller that removed a live record. */
  delete(id: string): Promise<boolean>;
  /**
   * Replace the record's `data` with `data` if it is exactly `expected` now (`undefined`: no data),
   * in one step: of processes racing to adopt a session whose owner is gone, exactly one wins.
   * `false` when the data differed or the record is gone. Expiry and times are left alone.
   */
  swap(id: string, expected: string | undefined, data: string): Promise<boolean>;
}

interface Entry {
  record: SessionRecord;
  expiresAt: number;
}

/**
 * Records looked at for expiry per `create`. More than the one `create` adds, so the sweep
 * outpaces growth: a record nobody reads again is dropped within about one pass over the map,
 * and each `create` stays O(1).
 */
const SWEEP_PER_CREATE = 4;

/**
 * The single-process {@link SessionStore}: a map, expiry checked on access against `now`, and a
 * few records swept on each `create` so expired ones nobody asks about again do not pile up.
 *
 * @example
 * const sessions = new InMemorySessionStore({ now: () => fakeClock });
 */
export class InMemorySessionStore implements SessionStore {
  private readonly entries = new Map<string, Entry>();
  private readonly byClient = new Map<string, Set<string>>();
  private readonly now: () => number;
  /** Where the incremental sweep goes on (a Map iterator survives deletes and sees appends). */
  private cursor: Iterator<[string, Entry]> | undefined;

  constructor(options: { now?: () => number } = {}) {
    this.now = options.now ?? Date.now;
  }

  create(
    record: { id: string; clientKey?: string; data?: string },
    options: { ttlMs: number; maxPerClient?: number },
  ): Promise<SessionCreateResult> {
    const now = this.now();
    this.sweep(now);
    if (this.live(record.id, now)) return Promise.resolve('exists');
    const { clientKey } = record;
    if (clientKey !== undefined && options.maxPerClient !== undefined) {
      const ids = [...(this.byClient.get(clientKey) ?? [])].filter((id) => this.live(id, now));
      if (ids.length >= options.maxPerClient) return Promise.resolve('client-limit');
    }
    this.entries.set(record.id, {
      record: { ...record, createdAt: now, lastSeenAt: now },
      expiresAt: now + options.ttlMs,
    });
    if (clientKey !== undefined) {
      const ids = this.byClient.get(clientKey) ?? new Set<string>();
      ids.add(record.id);
      this.byClient.set(clientKey, ids);
    }
    return Promise.resolve('created');
  }

  get(id: string): Promise<SessionRecord | undefined> {
    const entry = this.live(id, this.now());
    return Promise.resolve(entry && { ...entry.record });
  }

  touch(id: string, ttlMs: number): Promise<boolean> {
    const now = this.now();
    const entry = this.live(id, now);
    if (!entry) return Promise.resolve(false);
    entry.record.lastSeenAt = now;
    entry.expiresAt = now + ttlMs;
    return Promise.resolve(true);
  }

  delete(id: string): Promise<boolean> {
    const entry = this.live(id, this.now());
    if (!entry) return Promise.resolve(false);
    this.remove(id, entry);
    return Promise.resolve(true);
  }

  swap(id: string, expected: string | undefined, data: string): Promise<boolean> {
    const entry = this.live(id, this.now());
    if (!entry || entry.record.data !== expected) return Promise.resolve(false);
    entry.record.data = data;
    return Promise.resolve(true);
  }

  /** The entry if it has not expired; an expired one is dropped on the way. */
  private live(id: string, now: number): Entry | undefined {
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    if (entry.expiresAt > now) return entry;
    this.remove(id, entry);
    return undefined;
  }

  /** Drop the expired among the next few records; start over once the end is reached. */
  private sweep(now: number): void {
    for (let checked = 0; checked < SWEEP_PER_CREATE; checked++) {
      this.cursor ??= this.entries.entries();
      const next = this.cursor.next();
      if (next.done) {
        this.cursor = undefined; // the next create starts a new pass
        return;
      }
      const [id, entry] = next.value;
      if (entry.expiresAt <= now) this.remove(id, entry);
    }
  }

  private remove(id: string, entry: Entry): void {
    this.entries.delete(id);
    const key = entry.record.clientKey;
    if (key === undefined) return;
    const ids = this.byClient.get(key);
    ids?.delete(id);
    if (ids?.size === 0) this.byClient.delete(key);
  }
}
