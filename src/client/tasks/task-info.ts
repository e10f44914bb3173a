/**
 * What a client knows about a task, in one shape for both wire formats (2025-11-25 `ttl` /
 * `pollInterval`, 2026-07-28 `ttlMs` / `pollIntervalMs`), and the checks that turn a server's
 * answer into it: a task without an id or with a status the protocol does not have is a
 * {@link ProtocolViolationError}, never a loop that waits forever.
 */
import { isJsonObject, type JsonObject } from '../../core/jsonrpc.js';
import { ProtocolViolationError } from '../errors.js';

/**
 * A task's status (the same five in both eras).
 *
 * @example
 * const done = (s: TaskStatus) => s === 'completed' || s === 'failed' || s === 'cancelled';
 */
export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

const STATUSES: ReadonlySet<string> = new Set([
  'working',
  'input_required',
  'completed',
  'failed',
  'cancelled',
]);

/**
 * A task as last seen by the client.
 *
 * @example
 * const task: TaskInfo = await client.getTask(id);
 * console.log(task.status, task.statusMessage ?? '');
 */
export interface TaskInfo {
  /** The id the server chose. */
  taskId: string;
  status: TaskStatus;
  /** What the server says about the current status (a failure's reason, a progress message). */
  statusMessage?: string;
  /** ISO 8601. */
  createdAt: string;
  /** ISO 8601. */
  lastUpdatedAt: string;
  /** How long the server keeps the task, from its creation, in ms; `null`: no limit. */
  ttlMs: number | null;
  /** How often the server asks to be polled, in ms (when it said). */
  pollIntervalMs?: number;
}

/**
 * Whether a status is final (`completed`, `failed`, `cancelled`).
 *
 * @example
 * if (isTerminalStatus(task.status)) return;
 */
export function isTerminalStatus(status: TaskStatus): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}

/**
 * Read a task from a server's answer (`legacy`: `ttl`/`pollInterval`; `modern`: `ttlMs`/`pollIntervalMs`).
 *
 * @example
 * parseTask({ taskId: 't1', status: 'working', createdAt, lastUpdatedAt, ttl: null }, 'legacy', 'tasks/get');
 */
export function parseTask(value: unknown, format: 'legacy' | 'modern', what: string): TaskInfo {
  if (!isJsonObject(value)) throw new ProtocolViolationError(`${what}: the task is not an object`);
  const { taskId, status, statusMessage, createdAt, lastUpdatedAt } = value;
  if (typeof taskId !== 'string' || taskId === '')
    throw new ProtocolViolationError(`${what}: the task has no taskId`);
  if (typeof status !== 'string' || !STATUSES.has(status))
    throw new ProtocolViolationError(
      `${what}: task ${taskId} has status ${JSON.stringify(status)}, which is not a task status`,
    );
  const ttl = format === 'legacy' ? value.ttl : value.ttlMs;
  const interval = format === 'legacy' ? value.pollInterval : value.pollIntervalMs;
  const task: TaskInfo = {
    taskId,
    status: status as TaskStatus,
    createdAt: typeof createdAt === 'string' ? createdAt : '',
    lastUpdatedAt: typeof lastUpdatedAt === 'string' ? lastUpdatedAt : '',
    ttlMs: typeof ttl === 'number' && Number.isFinite(ttl) ? ttl : null,
  };
  if (typeof statusMessage === 'string') task.statusMessage = statusMessage;
  if (typeof interval === 'number' && Number.isFinite(interval) && interval >= 0)
    task.pollIntervalMs = interval;
  return task;
}

/**
 * Default wait between two polls when the server gave no interval (the spec's suggestion).
 *
 * @example
 * const wait = task.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
 */
export const DEFAULT_POLL_INTERVAL_MS = 1_000;
/**
 * Shortest wait between two polls, whatever the server asks (a 0 would spin).
 *
 * @example
 * Math.max(MIN_POLL_INTERVAL_MS, task.pollIntervalMs ?? 0); // what the client waits at least
 */
export const MIN_POLL_INTERVAL_MS = 50;
/**
 * Longest wait between two polls, whatever the server asks (status notifications wake earlier).
 *
 * @example
 * Math.min(MAX_POLL_INTERVAL_MS, task.pollIntervalMs ?? 0); // what the client waits at most
 */
export const MAX_POLL_INTERVAL_MS = 60_000;

/**
 * The wait before the next poll of `task`: its `pollIntervalMs`, bounded.
 *
 * @example
 * pollDelay({ ...task, pollIntervalMs: 0 }); // 50
 */
export function pollDelay(task: TaskInfo): number {
  const asked = task.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
  return Math.min(MAX_POLL_INTERVAL_MS, Math.max(MIN_POLL_INTERVAL_MS, asked));
}

/** `value[key]` when it is an object (a result's nested parts). */
export function objectAt(value: JsonObject, key: string): JsonObject | undefined {
  const found = value[key];
  return isJsonObject(found) ? found : undefined;
}
