/**
 * Where tasks live (issue 25): the records every process of a deployment agrees on, so a task
 * started on one process can be read, answered and cancelled on any other. The store knows
 * nothing of eras or wire formats: the task manager (task-manager.ts) and the era objects shape
 * what goes on the wire. Two implementations run one contract suite (test/tasks/store-contract.ts):
 * {@link InMemoryTaskStore} (one process) and `RedisTaskStore` (`keel-mcp/redis`).
 */
import type { JsonObject } from '../../core/jsonrpc.js';

/**
 * The life of a task: `working` and `input_required` may change; the three others are terminal
 * and never change again.
 *
 * @example
 * const done: TaskStatus[] = ['completed', 'failed', 'cancelled'];
 */
export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/**
 * A question a task's handler asked the client and that has no answer yet (`ctx.elicit`,
 * `ctx.createMessage`, `ctx.listRoots` inside a task).
 *
 * @example
 * const ask: TaskInputRequest = { method: 'elicitation/create', params: { mode: 'form', message: 'Sure?', requestedSchema } };
 */
export interface TaskInputRequest {
  readonly method: string;
  readonly params: JsonObject;
}

/**
 * One task as every process sees it. Times are ms since the epoch on the store's clock.
 *
 * @example
 * const task = await store.get(id);
 * if (task?.status === 'completed') send(task.result);
 */
export interface TaskRecord {
  /** Unguessable (at least 128 random bits): it is also what a client presents to reach the task. */
  readonly id: string;
  /**
   * Who may read, answer, list and cancel it: the authenticated principal when there is one,
   * else the session (`session:<id>`), else the client identity the era gives.
   */
  readonly owner: string;
  /** The request that started it (`tools/call`). */
  readonly method: string;
  /** The wire format of the request that started it: 2025-11-25 (`legacy`) or 2026-07-28 (`modern`). */
  readonly format: 'legacy' | 'modern';
  readonly status: TaskStatus;
  readonly statusMessage?: string;
  readonly createdAt: number;
  readonly lastUpdatedAt: number;
  /** How long the record is kept, from `createdAt` (see the store's expiry rule). */
  readonly ttlMs: number;
  /** How often a client should poll `tasks/get`. */
  readonly pollIntervalMs: number;
  /** `completed`: the answer the request would have had (a `CallToolResult`). */
  readonly result?: JsonObject;
  /** `failed`: the JSON-RPC error the request would have had. */
  readonly error?: { readonly code: number; readonly message: string; readonly data?: unknown };
  /** `input_required`: the questions still open, by key (unique over the task's life). */
  readonly inputRequests?: Readonly<Record<string, TaskInputRequest>>;
  /** Answers received, by key, kept until the record goes (the runner takes them from here). */
  readonly inputResponses?: Readonly<Record<string, JsonObject>>;
  /** The process running the work, and until when its lease holds (on the store's clock; renewed while it runs). */
  readonly runner?: string;
  readonly leaseUntil?: number;
}

/**
 * What a new task starts with (the store sets `createdAt` and `lastUpdatedAt`). `leaseMs`, when
 * given, sets `leaseUntil` to the store's now + `leaseMs` (one clock for the deployment: the
 * store's), and wins over a `leaseUntil` given too.
 *
 * @example
 * await store.create({ id, owner, method: 'tools/call', format: 'modern', status: 'working', ttlMs, pollIntervalMs, runner, leaseMs: 30_000 }, limits);
 */
export type NewTask = Omit<TaskRecord, 'createdAt' | 'lastUpdatedAt'> & { readonly leaseMs?: number };

/**
 * A change to a task. Fields set to `undefined` are removed; fields absent are kept.
 *
 * @example
 * await store.update(id, { status: 'completed', result, inputRequests: undefined });
 */
export type TaskPatch = {
  // `| undefined` spelled out: with exactOptionalPropertyTypes, `Partial` alone refuses the
  // `undefined` that removes a field.
  [K in 'status' | 'statusMessage' | 'result' | 'error' | 'inputRequests' | 'runner' | 'leaseUntil']?:
    TaskRecord[K] | undefined;
};

/**
 * What `create` decided: the record, or which bound refused it.
 *
 * @example
 * const made = await store.create(task, { maxPerOwner: 100, maxTotal: 10_000 });
 * if (made === 'owner-limit') throw tooManyTasks();
 */
export type TaskCreateResult = TaskRecord | 'owner-limit' | 'total-limit';

/**
 * Storage of task records shared by processes. Every operation is atomic on its record (one
 * check-and-write, never a read by the caller then a write: two processes racing an answer, a
 * cancel, a completion and an expiry cannot interleave inside one), and times come from the
 * store's clock:
 * - a terminal record never changes again (`update`, `answer`, `renew` and `expireLease` leave it
 *   as it is and return it);
 * - an input request whose key has an answer is never open again (an `update` that publishes it
 *   drops it), and a record left `input_required` with no open question is `working`;
 * - `create` checks the bounds and inserts in one step;
 * - a record expires `ttlMs` after `createdAt`, except that one not terminal is kept while its
 *   lease (`leaseUntil`) holds: running work is never dropped under its runner.
 *
 * `watch` tells every process of the deployment that a record changed (another process answered
 * or cancelled it), so the process running the work can act at once.
 *
 * @example
 * const store: TaskStore = new InMemoryTaskStore();
 * const made = await store.create(task, { maxPerOwner: 100, maxTotal: 10_000 });
 */
export interface TaskStore {
  /**
   * Insert `task`, unless its owner already has `maxPerOwner` tasks running (not terminal, lease
   * holding: finished ones do not count) or the store holds `maxTotal` records.
   */
  create(task: NewTask, limits: { maxPerOwner: number; maxTotal: number }): Promise<TaskCreateResult>;
  /** The live record, or `undefined` (never created, expired or deleted). */
  get(id: string): Promise<TaskRecord | undefined>;
  /**
   * Apply `patch` (and `lastUpdatedAt` = now) unless the record is terminal. Returns the record
   * after the call (changed or not), or `undefined` when there is none.
   */
  update(id: string, patch: TaskPatch): Promise<TaskRecord | undefined>;
  /**
   * Extend the lease of `runner` on a record that is not terminal: `leaseUntil` = the store's now
   * + `leaseMs`. Not a status change: `lastUpdatedAt` stays, and nobody is told. Returns the
   * record after the call (the runner learns from it that the task was cancelled elsewhere), or
   * `undefined` when there is none.
   */
  renew(id: string, runner: string, leaseMs: number): Promise<TaskRecord | undefined>;
  /**
   * Apply `patch` only if the record is not terminal and its lease (`leaseUntil`) has passed on the
   * store's clock: the rule for a task whose process died, applied in one step so that a runner
   * renewing (or finishing) at the same moment is never overwritten. Returns the record after.
   */
  expireLease(id: string, patch: TaskPatch): Promise<TaskRecord | undefined>;
  /**
   * Record answers: each key of `responses` that is an open input request moves from
   * `inputRequests` to `inputResponses`; other keys are ignored. When no question is left open,
   * the status goes back to `working`. A terminal record is left as it is. Returns the record
   * after the call, or `undefined` when there is none.
   */
  answer(id: string, responses: Readonly<Record<string, JsonObject>>): Promise<TaskRecord | undefined>;
  /**
   * The owner's live tasks, newest first, `limit` per page; `cursor` is the opaque string a
   * previous page returned. An unknown or malformed cursor throws a `RangeError`.
   */
  list(
    owner: string,
    cursor: string | undefined,
    limit: number,
  ): Promise<{ tasks: TaskRecord[]; nextCursor?: string }>;
  /** Remove the record now; `true` when there was one. */
  delete(id: string): Promise<boolean>;
  /** Call `listener` with the id of every record that changed, on any process; returns the unsubscribe. */
  watch(listener: (id: string) => void): () => void;
  /**
   * Resolves once `watch` hears changes made by other processes (a store that hears them at once
   * may leave it out). Changes made before are not heard: a caller re-reads what it cares about.
   */
  listening?(): Promise<void>;
  /** Release what the store holds (timers, connections it owns). */
  close(): Promise<void>;
}
