/**
 * The one-process {@link TaskStore}: records in a Map, each operation atomic because it runs to
 * its end without awaiting. Expired records are dropped when read and by one unref'd sweep
 * interval that runs only while the store holds records (no timer per record).
 */
import type { JsonObject } from '../../core/jsonrpc.js';
import { fromBase64Url, fromUtf8, toBase64Url, utf8 } from '../modern/state-encoding.js';
import type {
  NewTask,
  TaskInputRequest,
  TaskCreateResult,
  TaskPatch,
  TaskRecord,
  TaskStatus,
  TaskStore,
} from './task-store.js';

const TERMINAL: ReadonlySet<TaskStatus> = new Set(['completed', 'failed', 'cancelled']);

/**
 * True for `completed`, `failed` and `cancelled`: the record never changes again.
 *
 * @example
 * isTerminal('working'); // false
 */
export function isTerminal(status: TaskStatus): boolean {
  return TERMINAL.has(status);
}

/**
 * True when `record` is past its retention: `ttlMs` after `createdAt`, except that a record not
 * terminal is kept while its lease holds (running work is never dropped under its runner).
 *
 * @example
 * expired(record, Date.now());
 */
export function expired(record: TaskRecord, now: number): boolean {
  if (now < record.createdAt + record.ttlMs) return false;
  return isTerminal(record.status) || record.leaseUntil === undefined || record.leaseUntil <= now;
}

/**
 * Options of {@link InMemoryTaskStore}.
 *
 * @example
 * new InMemoryTaskStore({ sweepMs: 10_000 });
 */
export interface InMemoryTaskStoreOptions {
  /** How often expired records are dropped (they are also dropped when read). Default 60,000. */
  sweepMs?: number;
  /** The clock (tests). Default `Date.now`. */
  now?: () => number;
  /**
   * Largest record kept, in bytes of its JSON (results and questions included); a bigger one is
   * refused with a `RangeError` naming the task, as by the Redis store. Default 2 MiB.
   */
  maxRecordBytes?: number;
}

const UTF8 = new TextEncoder();

/**
 * Task records of one process. The default store of `McpServer` (`tasks.store`).
 *
 * @example
 * const server = new McpServer(info, { tasks: { store: new InMemoryTaskStore() } });
 */
export class InMemoryTaskStore implements TaskStore {
  private readonly records = new Map<string, TaskRecord>();
  /**
   * Running (not terminal) records per owner: the `maxPerOwner` bound, kept with every insert,
   * end and removal, so finished tasks never block new ones.
   */
  private readonly owned = new Map<string, number>();
  private readonly listeners = new Set<(id: string) => void>();
  private sweeper: ReturnType<typeof setInterval> | undefined;
  private readonly sweepMs: number;
  private readonly now: () => number;
  private readonly maxBytes: number;

  constructor(options: InMemoryTaskStoreOptions = {}) {
    this.sweepMs = options.sweepMs ?? 60_000;
    this.now = options.now ?? Date.now;
    this.maxBytes = options.maxRecordBytes ?? 2 * 1024 * 1024;
  }

  create(task: NewTask, limits: { maxPerOwner: number; maxTotal: number }): Promise<TaskCreateResult> {
    // Expired records go with the timer and when read; a full sweep here only when a bound would
    // refuse (a sweep per create would cost O(records) on every call).
    if (this.refusal(task.owner, limits) !== undefined) this.sweep();
    const bound = this.refusal(task.owner, limits);
    if (bound !== undefined) return Promise.resolve(bound);
    const at = this.now();
    const { leaseMs, ...fields } = task;
    const record: TaskRecord = {
      ...fields,
      ...(leaseMs !== undefined && { leaseUntil: at + leaseMs }),
      createdAt: at,
      lastUpdatedAt: at,
    };
    const refused = this.oversize(record);
    if (refused) return Promise.reject(refused);
    this.records.set(task.id, record);
    if (!isTerminal(record.status)) this.count(record.owner, 1);
    this.armSweeper();
    this.changed(task.id);
    return Promise.resolve(record);
  }

  get(id: string): Promise<TaskRecord | undefined> {
    return Promise.resolve(this.live(id));
  }

  update(id: string, patch: TaskPatch): Promise<TaskRecord | undefined> {
    const record = this.live(id);
    if (record === undefined || isTerminal(record.status)) return Promise.resolve(record);
    const next: { [key: string]: unknown } = { ...record };
    for (const [key, value] of Object.entries(patch)) {
      if (value === undefined) delete next[key];
      else next[key] = value;
    }
    const stored = withOpenQuestions(next as unknown as TaskRecord);
    (stored as { lastUpdatedAt: number }).lastUpdatedAt = this.now();
    return this.replace(stored);
  }

  renew(id: string, runner: string, leaseMs: number): Promise<TaskRecord | undefined> {
    const record = this.live(id);
    if (record === undefined || isTerminal(record.status) || record.runner !== runner)
      return Promise.resolve(record);
    // Not a status change: lastUpdatedAt stays and no listener is told.
    const stored: TaskRecord = { ...record, leaseUntil: this.now() + leaseMs };
    this.records.set(id, stored);
    return Promise.resolve(stored);
  }

  expireLease(id: string, patch: TaskPatch): Promise<TaskRecord | undefined> {
    const record = this.live(id);
    if (record?.leaseUntil === undefined || record.leaseUntil > this.now()) return Promise.resolve(record);
    return this.update(id, patch);
  }

  answer(id: string, responses: Readonly<Record<string, JsonObject>>): Promise<TaskRecord | undefined> {
    const record = this.live(id);
    if (record === undefined || isTerminal(record.status)) return Promise.resolve(record);
    const open = { ...record.inputRequests };
    const answers = { ...record.inputResponses };
    let moved = false;
    for (const [key, value] of Object.entries(responses)) {
      if (!Object.hasOwn(open, key)) continue;
      delete open[key];
      answers[key] = value;
      moved = true;
    }
    if (!moved) return Promise.resolve(record);
    const left = Object.keys(open).length > 0;
    const stored: TaskRecord = {
      ...record,
      status: left ? record.status : 'working',
      inputRequests: open,
      inputResponses: answers,
      lastUpdatedAt: this.now(),
    };
    if (!left) delete (stored as { inputRequests?: unknown }).inputRequests;
    return this.replace(stored);
  }

  list(
    owner: string,
    cursor: string | undefined,
    limit: number,
  ): Promise<{ tasks: TaskRecord[]; nextCursor?: string }> {
    this.sweep();
    const mine = [...this.records.values()]
      .filter((record) => record.owner === owner)
      .sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? -1 : 1));
    let start = 0;
    if (cursor !== undefined) {
      const after = decodeCursor(cursor);
      if (after === undefined) return Promise.reject(new RangeError('Malformed cursor'));
      const index = mine.findIndex((record) => record.id === after);
      if (index < 0) return Promise.reject(new RangeError('Unknown or expired cursor'));
      start = index + 1;
    }
    const tasks = mine.slice(start, start + limit);
    const last = tasks.at(-1);
    return Promise.resolve(
      start + limit < mine.length && last !== undefined
        ? { tasks, nextCursor: encodeCursor(last.id) }
        : { tasks },
    );
  }

  delete(id: string): Promise<boolean> {
    const had = this.drop(id);
    if (had) this.changed(id);
    if (this.records.size === 0) this.disarmSweeper();
    return Promise.resolve(had);
  }

  watch(listener: (id: string) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  close(): Promise<void> {
    this.disarmSweeper();
    this.listeners.clear();
    return Promise.resolve();
  }

  /** Store `record` over the one of its id (same owner), unless it is over the byte cap. */
  private replace(record: TaskRecord): Promise<TaskRecord> {
    const refused = this.oversize(record);
    if (refused) return Promise.reject(refused);
    const before = this.records.get(record.id);
    this.records.set(record.id, record);
    if (before !== undefined && !isTerminal(before.status) && isTerminal(record.status))
      this.count(record.owner, -1);
    this.changed(record.id);
    return Promise.resolve(record);
  }

  private refusal(
    owner: string,
    limits: { maxPerOwner: number; maxTotal: number },
  ): 'total-limit' | 'owner-limit' | undefined {
    if (this.records.size >= limits.maxTotal) return 'total-limit';
    // A count per owner, kept with every insert, end and removal: no scan per create.
    if ((this.owned.get(owner) ?? 0) >= limits.maxPerOwner) return 'owner-limit';
    return undefined;
  }

  private count(owner: string, by: 1 | -1): void {
    const running = (this.owned.get(owner) ?? 0) + by;
    if (running > 0) this.owned.set(owner, running);
    else this.owned.delete(owner);
  }

  /** Remove a record (and, if it was running, its place in its owner's count). */
  private drop(id: string): boolean {
    const record = this.records.get(id);
    if (record === undefined) return false;
    this.records.delete(id);
    if (!isTerminal(record.status)) this.count(record.owner, -1);
    return true;
  }

  /** The error for a record over the byte cap (the record is then not stored). */
  private oversize(record: TaskRecord): RangeError | undefined {
    const bytes = UTF8.encode(JSON.stringify(record)).length;
    if (bytes <= this.maxBytes) return undefined;
    return new RangeError(
      `Task ${record.id}: the record is ${bytes} bytes, over the store's cap of ${this.maxBytes} (maxRecordBytes)`,
    );
  }

  /** The record unless it expired (then it is dropped now). */
  private live(id: string): TaskRecord | undefined {
    const record = this.records.get(id);
    if (record === undefined || !expired(record, this.now())) return record;
    this.drop(id);
    return undefined;
  }

  private sweep(): void {
    const now = this.now();
    for (const [id, record] of this.records) if (expired(record, now)) this.drop(id);
    if (this.records.size === 0) this.disarmSweeper();
  }

  private armSweeper(): void {
    if (this.sweeper !== undefined) return;
    this.sweeper = setInterval(() => this.sweep(), this.sweepMs);
    // Records are data, not work: they never keep the process alive.
    this.sweeper.unref?.();
  }

  private disarmSweeper(): void {
    if (this.sweeper !== undefined) clearInterval(this.sweeper);
    this.sweeper = undefined;
  }

  /** Listeners run at once, so the runner sees an answer before the `answer` call returns. */
  private changed(id: string): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(id);
      } catch {
        // A listener's failure is its own; the store's operation succeeded.
      }
    }
  }
}

/**
 * The record with the rule on questions applied: a key that has an answer is not open again (a
 * publish that read the record before the answer came must not bring the question back), and a
 * record `input_required` with nothing left open is `working`.
 */
function withOpenQuestions(record: TaskRecord): TaskRecord {
  const asked = record.inputRequests;
  const answered = record.inputResponses;
  if (asked === undefined)
    return record.status === 'input_required' ? { ...record, status: 'working' } : record;
  const open: Record<string, TaskInputRequest> = {};
  for (const [key, value] of Object.entries(asked))
    if (!answered || !Object.hasOwn(answered, key)) open[key] = value;
  const next: { -readonly [K in keyof TaskRecord]: TaskRecord[K] } = { ...record, inputRequests: open };
  if (Object.keys(open).length === 0) {
    delete next.inputRequests;
    if (next.status === 'input_required') next.status = 'working';
  }
  return next;
}

// Opaque to clients: the id of the last task of a page, base64url-wrapped with a version tag.
function encodeCursor(id: string): string {
  return toBase64Url(utf8(`v1:${id}`));
}

function decodeCursor(cursor: string): string | undefined {
  const bytes = fromBase64Url(cursor);
  let text: string;
  try {
    text = bytes === undefined ? '' : fromUtf8(bytes);
  } catch {
    // Valid base64url that is not UTF-8 ("nonsense"): malformed like any other.
    return undefined;
  }
  return text.startsWith('v1:') ? text.slice(3) : undefined;
}
