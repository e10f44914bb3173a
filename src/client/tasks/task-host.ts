/**
 * What the client's task operations need from their `McpClient`, and their options.
 */
import type { Logger } from '../../core/engine/connection-types.js';
import type { RequestOptions } from '../../core/engine/outbound.js';
import type { Meta } from '../../core/types/common.js';
import type { Client } from '../client.js';
import type { ToolHeaderMap } from '../modern/tool-headers.js';
import type { OutputSchemaCache } from '../output-schemas.js';
import type { TaskInfo } from './task-info.js';
import type { TaskSupportCache } from './task-support.js';
import type { TaskTracker } from './task-tracker.js';

/**
 * What the task methods need from their `McpClient`.
 *
 * @example
 * const host: TaskHost = { lowLevel, toolHeaders, outputSchemas, validateOutput: true, logger: undefined, tracker, taskSupport, refresh };
 */
export interface TaskHost {
  readonly lowLevel: Client;
  readonly toolHeaders: ToolHeaderMap;
  readonly outputSchemas: OutputSchemaCache;
  readonly validateOutput: boolean | undefined;
  readonly logger: Logger | undefined;
  readonly tracker: TaskTracker;
  readonly taskSupport: TaskSupportCache;
  refresh(options: RequestOptions): Promise<void>;
}

/**
 * Options of `McpClient.startToolTask`.
 *
 * @example
 * const options: ToolTaskOptions = { ttlMs: 3_600_000, signal: controller.signal, onStatus: (t) => console.error(t.status) };
 */
export interface ToolTaskOptions {
  /** How long the server should keep the task (2025-11-25 `task.ttl`; 2026-07-28: the server decides). */
  ttlMs?: number | undefined;
  /** Aborting it cancels the task (`tasks/cancel`) and rejects `result()` with `RequestAbortedError`. */
  signal?: AbortSignal | undefined;
  /** Idle timeout of each request (the `tools/call`, each poll); the task itself has none. */
  timeoutMs?: number | undefined;
  /** Called with the task at the start and at every status change. */
  onStatus?: ((task: TaskInfo) => void) | undefined;
  /** Check `structuredContent` against the cached `outputSchema` (default: the client's setting). */
  validateOutput?: boolean | undefined;
  /** `_meta` to send with the `tools/call`. */
  meta?: Meta | undefined;
}

/**
 * Options of `McpClient.resumeTask` / `taskResult`.
 *
 * @example
 * const result = await client.taskResult(id, { timeoutMs: 10_000 });
 */
export type TaskFollowOptions = Pick<ToolTaskOptions, 'signal' | 'timeoutMs' | 'onStatus'>;

/**
 * A page of `tasks/list` (2025-11-25).
 *
 * @example
 * const { tasks, nextCursor }: TaskListPage = await client.listTasks();
 */
export interface TaskListPage {
  tasks: TaskInfo[];
  nextCursor?: string;
}
