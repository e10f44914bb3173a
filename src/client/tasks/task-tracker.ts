/**
 * The live task handles of one client: a 2025-11-25 `notifications/tasks/status` reaches the
 * handle of its task, and the end of the connection stops every handle (each `result()` rejects
 * with the connection's closed error). One close listener per connection, not one per task.
 */
import type { Connection } from '../../core/engine/connection.js';
import { isJsonObject, type JsonObject } from '../../core/jsonrpc.js';
import { parseTask } from './task-info.js';
import type { ToolTask } from './tool-task.js';

/**
 * @example
 * const tracker = new TaskTracker();
 * tracker.attach(client.lowLevel.connection);
 */
export class TaskTracker {
  private readonly live = new Set<ToolTask>();

  /** Stop every handle when `connection` ends (call once per connection). */
  attach(connection: Connection): void {
    connection.onClose(() => {
      const error = connection.closedError();
      for (const task of [...this.live]) task.close(error);
      this.live.clear();
    });
  }

  add(task: ToolTask): void {
    this.live.add(task);
  }

  remove(task: ToolTask): void {
    this.live.delete(task);
  }

  /** `notifications/tasks/status` (2025-11-25: the full task, flat). Malformed ones are dropped. */
  notify(params: JsonObject): void {
    if (!isJsonObject(params) || typeof params.taskId !== 'string' || this.live.size === 0) return;
    let task;
    try {
      task = parseTask(params, 'legacy', 'notifications/tasks/status');
    } catch {
      return; // A notification cannot be answered: a bad one is ignored (the poll still runs).
    }
    for (const handle of this.live) if (handle.taskId === task.taskId) handle.notified(task);
  }
}
