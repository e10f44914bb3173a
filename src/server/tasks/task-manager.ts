/**
 * The tasks of one McpServer: creates records, runs their work on this process, renews the lease
 * of each running task, stores exactly one outcome, and reads, answers and cancels tasks for
 * their owner. Era-neutral: the era's `TaskWire` shapes what goes on the wire.
 */
import { ErrorCode, LocalError, McpError } from '../../core/errors.js';
import type { JsonObject } from '../../core/jsonrpc.js';
import type { InputChannel } from '../input-channel.js';
import { toBase64Url } from '../modern/state-encoding.js';
import { InMemoryTaskStore, isTerminal } from './memory-task-store.js';
import { TaskChannel } from './task-channel.js';
import { withLeaseRule } from './task-lease.js';
import {
  resolveTaskLimits,
  taskNotFound,
  tooManyTasks,
  type TaskLimits,
  type TaskOptions,
} from './task-options.js';
import type { TaskPatch, TaskRecord, TaskStore } from './task-store.js';

/**
 * The reason a task's signal aborts with on `tasks/cancel` (from this process or another), or
 * when the task ended elsewhere while its work still ran here.
 *
 * @example
 * if (ctx.signal.reason instanceof TaskCancelledError) console.log('cancelled by the client');
 */
export class TaskCancelledError extends LocalError {
  override name = 'TaskCancelledError';
}

/**
 * The reason a task's signal aborts with when the server closes.
 *
 * @example
 * if (ctx.signal.reason instanceof TaskShutdownError) console.log('server closing');
 */
export class TaskShutdownError extends LocalError {
  override name = 'TaskShutdownError';
}

const SHUTDOWN_MESSAGE = 'The server shut down before the task finished';

/** Prefix of the owner of a task made without authentication in a session (2025-11-25). */
export const SESSION_OWNER_PREFIX = 'session:';

/**
 * The owner a caller without authentication presents in 2025-11-25 to reach a task by id: it
 * matches every task owned by a session (the 128-bit id is the capability: a task outlives the
 * connection that made it). Never stored; `list` does not take it.
 */
export const ANY_SESSION = 'session:*';

/**
 * What a task's work gets: its channel and signal.
 *
 * @example
 * tasks.launch(record, undefined, ({ channel, signal }) => work(channel, signal));
 */
export interface TaskRun {
  readonly id: string;
  readonly signal: AbortSignal;
  readonly channel: TaskChannel;
  /** Show `message` as the task's `statusMessage`. */
  progress(message: string): void;
}

interface Running {
  readonly controller: AbortController;
  readonly channel: TaskChannel;
  lease: ReturnType<typeof setInterval> | undefined;
}

/** 128 random bits, base64url: the id is also the capability to reach the task. */
function newTaskId(): string {
  return toBase64Url(crypto.getRandomValues(new Uint8Array(16)));
}

const UTF8 = new TextEncoder();

function byteLength(text: string): number {
  return UTF8.encode(text).length;
}

/**
 * The task manager of one server.
 *
 * @example
 * const tasks = new TaskManager({ maxPerOwner: 10 });
 * const record = await tasks.create('anonymous', 'tools/call', 'modern');
 */
export class TaskManager {
  readonly limits: TaskLimits;
  readonly store: TaskStore;
  private readonly ownsStore: boolean;
  private readonly running = new Map<string, Running>();
  private unwatch: (() => void) | undefined;
  /** What {@link follow} registered (told through the manager's one store watcher). */
  private readonly followers = new Set<(id: string) => void>();
  private closed = false;
  private readonly runner = newTaskId();

  constructor(
    options: TaskOptions = {},
    /** Told of failures no client can see (a store that fails while storing an outcome). */
    private readonly report: (error: unknown) => void = () => undefined,
  ) {
    this.limits = resolveTaskLimits(options);
    this.ownsStore = options.store === undefined;
    this.store = options.store ?? new InMemoryTaskStore();
  }

  /**
   * Create a `working` record for `owner` (`-32010` past a bound); it resolves before it returns.
   * `ttlMs` is what the client asked for: clamped to [1 s, `maxTtlMs`] (default `defaultTtlMs`).
   */
  async create(
    owner: string,
    method: string,
    format: TaskRecord['format'],
    ttlMs?: number,
  ): Promise<TaskRecord> {
    if (this.closed) throw new McpError(ErrorCode.InternalError, 'The server is closing');
    const { maxPerOwner, maxTotal, defaultTtlMs, maxTtlMs, pollIntervalMs, leaseMs } = this.limits;
    // At least a second: a result must still be readable when the client comes for it.
    const ttl = ttlMs === undefined ? defaultTtlMs : Math.min(maxTtlMs, Math.max(1_000, Math.round(ttlMs)));
    const made = await this.store.create(
      {
        id: newTaskId(),
        owner,
        method,
        format,
        status: 'working',
        ttlMs: ttl,
        pollIntervalMs,
        runner: this.runner,
        // On the store's clock (one for the deployment), not this process's.
        leaseMs,
      },
      { maxPerOwner, maxTotal },
    );
    if (made === 'owner-limit') throw tooManyTasks('maxPerOwner', maxPerOwner);
    if (made === 'total-limit') throw tooManyTasks('maxTotal', maxTotal);
    return made;
  }

  /**
   * Run `work` for `record` on this process: the lease is renewed while it runs and its outcome is
   * stored once (a result, or `failed` for an McpError or anything else thrown). `prelude` is the
   * request's channel for `beforeTask` questions until {@link TaskChannel.endPrelude}.
   */
  launch(
    record: TaskRecord,
    prelude: InputChannel | undefined,
    work: (run: TaskRun) => JsonObject | Promise<JsonObject>,
  ): TaskRun {
    const id = record.id;
    const controller = new AbortController();
    const channel = new TaskChannel(
      {
        // One atomic write: the store drops a key answered meanwhile (on any process), so no
        // read-then-write here can bring an answered question back.
        publish: (open) =>
          this.store
            .update(id, { status: 'input_required', inputRequests: open })
            .then(undefined, (error: unknown) => this.abandon(id, error)),
        fail: (error) => void this.finish(id, { error: error.toJSON() }, record.format),
      },
      controller.signal,
      prelude,
    );
    const entry: Running = { controller, channel, lease: undefined };
    this.running.set(id, entry);
    this.watchStore();
    const { leaseMs } = this.limits;
    entry.lease = setInterval(
      () => {
        // A renewal is not a status change (lastUpdatedAt stays); its answer also tells this
        // process of a cancel whose message it missed.
        void this.store.renew(id, this.runner, leaseMs).then((now) => this.sawRecord(id, now), this.report);
      },
      Math.max(1, Math.floor(leaseMs / 3)),
    );
    // The lease is bookkeeping: it must never keep a process alive.
    entry.lease.unref?.();
    const run: TaskRun = {
      id,
      signal: controller.signal,
      channel,
      progress: (message) => void this.store.update(id, { statusMessage: message }).catch(this.report),
    };
    void Promise.resolve()
      .then(() => work(run))
      .then(
        (result) => this.finish(id, { result }, record.format),
        (error: unknown) => this.finish(id, { error: toTaskError(error) }, record.format),
      );
    // A cancel stored before this process ran the work (another process, between the record's
    // creation and now) or before its store heard other processes: read the record once that is
    // so, and stop the work if it already ended.
    void Promise.resolve(this.store.listening?.())
      .then(() => this.store.get(id))
      .then((now) => this.sawRecord(id, now), this.report);
    return run;
  }

  /** The owner's task (`-32602` when there is none, it expired, or it is someone else's). */
  async get(id: string, owner: string): Promise<TaskRecord> {
    const record = await this.store.get(id);
    if (record === undefined || !reaches(owner, record.owner)) throw taskNotFound(id);
    const { view, patch } = withLeaseRule(record, Date.now());
    if (patch === undefined) return view;
    // Checked again by the store, on its clock, in the same step as the write: a runner that
    // renewed or finished meanwhile wins, and what is returned is what is stored.
    const after = await this.store.expireLease(id, patch);
    if (after === undefined) throw taskNotFound(id);
    return after;
  }

  /**
   * A page of the owner's live tasks (newest first, lease rule applied to each view); a bad
   * cursor is `-32602`.
   */
  async list(
    owner: string,
    cursor: string | undefined,
    limit: number,
  ): Promise<{ tasks: TaskRecord[]; nextCursor?: string }> {
    let page: { tasks: TaskRecord[]; nextCursor?: string };
    try {
      page = await this.store.list(owner, cursor, limit);
    } catch (error) {
      if (error instanceof RangeError)
        throw new McpError(ErrorCode.InvalidParams, `Invalid cursor: ${error.message}`);
      throw error;
    }
    const now = Date.now();
    const tasks = page.tasks.map((record) => withLeaseRule(record, now).view);
    return page.nextCursor === undefined ? { tasks } : { tasks, nextCursor: page.nextCursor };
  }

  /** Record answers to open questions (others are ignored); applied before this resolves. */
  async answer(
    id: string,
    owner: string,
    responses: Readonly<Record<string, JsonObject>>,
  ): Promise<TaskRecord> {
    await this.get(id, owner);
    const record = await this.store.answer(id, responses);
    if (record === undefined) throw taskNotFound(id);
    return record;
  }

  /**
   * Cancel the owner's task: `cancelled` is stored first (a terminal task stays as it is), then
   * the work's signal aborts so its `finally` blocks run. Resolves with the record after.
   */
  async cancel(id: string, owner: string): Promise<TaskRecord> {
    const before = await this.get(id, owner);
    if (isTerminal(before.status)) return before;
    const after = await this.store.update(id, {
      status: 'cancelled',
      statusMessage: 'Cancelled by the client',
      inputRequests: undefined,
    });
    this.stop(id, new TaskCancelledError('The task was cancelled'));
    return after ?? before;
  }

  /**
   * Stop every task running here: each is stored `failed` ("the server shut down") and its work
   * aborted; timers and the store's listener go. A store the manager made itself is closed.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const ids = [...this.running.keys()];
    await Promise.all(
      ids.map((id) =>
        this.store
          .update(id, {
            status: 'failed',
            statusMessage: SHUTDOWN_MESSAGE,
            error: { code: ErrorCode.InternalError, message: SHUTDOWN_MESSAGE },
            inputRequests: undefined,
          })
          .catch(this.report),
      ),
    );
    for (const id of ids) this.stop(id, new TaskShutdownError(SHUTDOWN_MESSAGE));
    this.followers.clear();
    this.unwatch?.();
    this.unwatch = undefined;
    if (this.ownsStore) await this.store.close();
  }

  /**
   * Call `onChange` with task `id` each time it changes, on any process that shares the store,
   * until it ends (the terminal record is the last call), the returned function is called, or the
   * manager closes. Status notifications are built on it; they are optional in both formats, so a
   * change seen twice or missed while the store reconnects is harmless (clients poll).
   *
   * @example
   * const stop = tasks.follow(record.id, (task) => void session.notify('notifications/tasks/status', legacyTask(task)));
   */
  follow(id: string, onChange: (record: TaskRecord) => void): () => void {
    if (this.closed) return () => undefined;
    let last = '';
    let live = true;
    const listener = (changed: string): void => {
      if (changed !== id) return;
      void this.store.get(id).then((record) => {
        if (!live || record === undefined) return;
        const view = withLeaseRule(record, Date.now()).view;
        // Two change messages may read the same record: tell each state once.
        const seen = `${view.status}|${view.lastUpdatedAt}|${view.statusMessage ?? ''}`;
        if (seen === last) return;
        last = seen;
        try {
          onChange(view);
        } finally {
          if (isTerminal(view.status)) stop();
        }
      }, this.report);
    };
    const stop = (): void => {
      if (!live) return;
      live = false;
      this.followers.delete(listener);
      this.releaseWatch();
    };
    this.followers.add(listener);
    // The manager's one store watcher serves the runners and the followers alike.
    this.watchStore();
    return stop;
  }

  /** Drop a task no client was told about (its work stops with `reason`). */
  async discard(id: string, reason: unknown): Promise<void> {
    this.stop(id, reason instanceof Error ? reason : new TaskCancelledError('The task was dropped'));
    await this.store.delete(id).catch(this.report);
  }

  /** How many tasks run on this process now. */
  get runningCount(): number {
    return this.running.size;
  }

  /** Store the outcome once (the store keeps a terminal record as it is) and release the run. */
  private async finish(
    id: string,
    outcome: { result: JsonObject } | { error: { code: number; message: string; data?: unknown } },
    format: TaskRecord['format'],
  ): Promise<void> {
    if (!this.running.has(id)) return;
    let patch: TaskPatch;
    if ('result' in outcome) {
      const bytes = byteLength(JSON.stringify(outcome.result));
      const cap = this.limits.maxResultBytes;
      patch =
        bytes > cap
          ? failedPatch({
              code: ErrorCode.InternalError,
              message: `The task's result is ${bytes} bytes, over the server's cap (tasks.maxResultBytes = ${cap})`,
            })
          : // 2025-11-25: a tool result with isError ends `failed` (tasks/result still returns it);
            // 2026-07-28 keeps `failed` for JSON-RPC errors only.
            format === 'legacy' && outcome.result.isError === true
            ? {
                status: 'failed',
                statusMessage: 'The tool returned an error result (isError: true)',
                result: outcome.result,
                inputRequests: undefined,
              }
            : { status: 'completed', result: outcome.result, inputRequests: undefined };
    } else patch = failedPatch(outcome.error);
    // Released first: the work is over whatever the store says.
    this.stop(id, undefined);
    await this.store.update(id, patch).then(undefined, (error: unknown) => this.failStored(id, error));
  }

  /**
   * The store refused an outcome (a record over its `maxRecordBytes`, say): the task must not stay
   * `working`, so it fails with the store's reason.
   */
  private async failStored(id: string, error: unknown): Promise<void> {
    const reason = error instanceof Error ? error.message : String(error);
    const message = `The task's outcome could not be stored: ${reason}`;
    await this.store
      .update(id, failedPatch({ code: ErrorCode.InternalError, message }))
      .then(undefined, (again: unknown) => this.report(again));
  }

  /** A write the work needed was refused: its work stops, and the task fails with the reason. */
  private abandon(id: string, error: unknown): Promise<void> {
    if (!this.running.has(id)) return Promise.resolve();
    this.stop(id, new LocalError('The task failed: its record could not be written', { cause: error }));
    return this.failStored(id, error);
  }

  /** What the store says now: work still running here for a task that ended elsewhere stops. */
  private sawRecord(id: string, record: TaskRecord | undefined): void {
    const entry = this.running.get(id);
    // Closing: close() itself stops each task, with the shutdown reason.
    if (entry === undefined || this.closed) return;
    if (record !== undefined) entry.channel.sawRecord(record);
    if (record === undefined || isTerminal(record.status))
      this.stop(
        id,
        new TaskCancelledError(
          record?.status === 'cancelled' ? 'The task was cancelled' : 'The task ended elsewhere',
        ),
      );
  }

  private stop(id: string, reason: Error | undefined): void {
    const entry = this.running.get(id);
    if (entry === undefined) return;
    this.running.delete(id);
    if (entry.lease !== undefined) clearInterval(entry.lease);
    if (reason !== undefined) entry.controller.abort(reason);
    this.releaseWatch();
  }

  /** The store watcher goes when nothing runs or follows here. */
  private releaseWatch(): void {
    if (this.running.size > 0 || this.followers.size > 0) return;
    this.unwatch?.();
    this.unwatch = undefined;
  }

  /** Answers may arrive through any process: the store tells us, and the channel resolves. */
  private watchStore(): void {
    if (this.unwatch !== undefined) return;
    this.unwatch = this.store.watch((id) => {
      for (const follower of [...this.followers]) follower(id);
      const entry = this.running.get(id);
      if (entry === undefined) return;
      // Cancelled elsewhere (another process): stop the work here too.
      void this.store.get(id).then((record) => this.sawRecord(id, record), this.report);
    });
  }
}

/** `owner` may reach a task of `recordOwner`: the same, or {@link ANY_SESSION} for a session's task. */
function reaches(owner: string, recordOwner: string): boolean {
  return owner === recordOwner || (owner === ANY_SESSION && recordOwner.startsWith(SESSION_OWNER_PREFIX));
}

function failedPatch(error: { code: number; message: string; data?: unknown }): TaskPatch {
  return { status: 'failed', statusMessage: error.message, error, inputRequests: undefined };
}

/** The `error` of a failed task: an McpError as it is, anything else as `-32603` with its message. */
function toTaskError(error: unknown): { code: number; message: string; data?: unknown } {
  if (error instanceof McpError) return error.toJSON();
  const message = error instanceof Error && error.message !== '' ? error.message : 'The task failed';
  return { code: ErrorCode.InternalError, message };
}
