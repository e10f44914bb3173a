/**
 * The `tasks` option of `McpServer`: where records live and the bounds of a server's tasks.
 */
import { ErrorCode, McpError } from '../../core/errors.js';
import type { TaskStore } from './task-store.js';

/**
 * Tasks of one McpServer (issue 25). Every bound has a default; a request past one is refused
 * with `-32010` naming it.
 *
 * @example
 * new McpServer(info, { tasks: { defaultTtlMs: 10 * 60_000, maxPerOwner: 20 } });
 */
export interface TaskOptions {
  /** Where task records live. Default: a new `InMemoryTaskStore` (one process). */
  store?: TaskStore;
  /** How long a task is kept, from its creation (while it runs, it is kept anyway). Default 1 h. */
  defaultTtlMs?: number;
  /** The most a client may ask for (2025-11-25 `task.ttl`). Default 24 h. */
  maxTtlMs?: number;
  /** How often clients should poll `tasks/get`. Default 1,000. */
  pollIntervalMs?: number;
  /**
   * Tasks running at once per owner (principal, session or `anonymous`): finished tasks, kept
   * until their TTL, do not count (`maxTotal` bounds the records). Default 100.
   */
  maxPerOwner?: number;
  /** Task records in the store, running or finished (until their TTL). Default 10,000. */
  maxTotal?: number;
  /** Largest result stored (UTF-8 JSON bytes); a larger one fails the task with `-32603`. Default 1 MiB. */
  maxResultBytes?: number;
  /** How long a running task's record says its process is alive; renewed at a third of it. Default 30 s. */
  leaseMs?: number;
}

/**
 * {@link TaskOptions} with every default filled in (the store apart).
 *
 * @example
 * const limits = resolveTaskLimits({ maxPerOwner: 5 });
 */
export type TaskLimits = Required<Omit<TaskOptions, 'store'>>;

const DEFAULTS: TaskLimits = {
  defaultTtlMs: 3_600_000,
  maxTtlMs: 86_400_000,
  pollIntervalMs: 1_000,
  maxPerOwner: 100,
  maxTotal: 10_000,
  maxResultBytes: 1_048_576,
  leaseMs: 30_000,
};

/**
 * Fill in the defaults and check every value (a positive integer), throwing a `RangeError` that
 * names a bad one.
 *
 * @example
 * resolveTaskLimits({ pollIntervalMs: 500 }).pollIntervalMs; // 500
 */
export function resolveTaskLimits(options: TaskOptions = {}): TaskLimits {
  const limits = { ...DEFAULTS };
  for (const key of Object.keys(DEFAULTS) as (keyof TaskLimits)[]) {
    const value = options[key];
    if (value === undefined) continue;
    if (!Number.isInteger(value) || value < 1)
      throw new RangeError(`tasks.${key} must be a positive integer, got ${String(value)}`);
    limits[key] = value;
  }
  if (limits.defaultTtlMs > limits.maxTtlMs)
    throw new RangeError(
      `tasks.defaultTtlMs (${limits.defaultTtlMs}) exceeds tasks.maxTtlMs (${limits.maxTtlMs})`,
    );
  return limits;
}

/**
 * The `-32010` refusal of a task past a bound.
 *
 * @example
 * throw tooManyTasks('maxPerOwner', 100);
 */
export function tooManyTasks(limit: 'maxPerOwner' | 'maxTotal', value: number): McpError {
  const text =
    limit === 'maxPerOwner'
      ? `this client already has ${value} tasks running (tasks.${limit}); retry when one has ended`
      : `the server already holds ${value} tasks (tasks.${limit}); retry when one has expired`;
  return new McpError(ErrorCode.ServerBusy, `Too many tasks: ${text}`, { limit: `tasks.${limit}`, value });
}

/**
 * The `-32602` answer for a task that does not exist, expired, or belongs to someone else (the
 * same answer for all three: an id must not tell whether it exists).
 *
 * @example
 * throw taskNotFound(id);
 */
export function taskNotFound(id: string): McpError {
  return new McpError(ErrorCode.InvalidParams, `Task not found: ${JSON.stringify(id.slice(0, 200))}`);
}
