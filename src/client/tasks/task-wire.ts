/**
 * What differs between the two task formats, seen from the client: how a task is started, read,
 * answered, cancelled and how its result is fetched. `legacy-task-wire.ts` (2025-11-25) and
 * `modern-task-wire.ts` (2026-07-28) implement it; the poll loop (tool-task.ts) never asks which
 * era it is in.
 */
import type { RequestOptions } from '../../core/engine/outbound.js';
import type { JsonObject } from '../../core/jsonrpc.js';
import type { Meta } from '../../core/types/common.js';
import type { TaskInfo } from './task-info.js';

/** One answer of the server about a task: the parsed task, and the raw object it came from. */
export interface TaskSnapshot {
  task: TaskInfo;
  raw: JsonObject;
}

/** What `tools/call` as a task gave: a task, or (a server's choice) the result at once. */
export type TaskStart = { task: TaskSnapshot } | { result: JsonObject };

/** How to start a tool call as a task. */
export interface TaskStartRequest {
  name: string;
  args: JsonObject | undefined;
  meta: Meta | undefined;
  /** 2025-11-25 only (`params.task.ttl`); 2026-07-28 has no way to ask. */
  ttlMs: number | undefined;
}

/** The operations on one task the poll loop needs. */
export interface TaskChannel {
  get(options: RequestOptions): Promise<TaskSnapshot>;
  /** `tasks/cancel`; the task as the server now shows it, when its answer says. */
  cancel(options: RequestOptions): Promise<TaskInfo | undefined>;
  /** The task waits for the client: give what it asks (resolves once handed over). */
  input(snapshot: TaskSnapshot, options: RequestOptions): Promise<void>;
  /** The task ended: its result (`completed`, legacy `failed` with a result) or its error. */
  finish(snapshot: TaskSnapshot, options: RequestOptions): Promise<JsonObject>;
}

/**
 * One era's task wire.
 *
 * @example
 * const wire = taskWireFor(client);
 * wire.assertSupported('render');
 * const started = await wire.start({ name: 'render', args, meta: undefined, ttlMs: 60_000 }, options);
 */
export interface ClientTaskWire {
  readonly format: 'legacy' | 'modern';
  /** Throws {@link TasksNotSupportedError} when the server did not say it runs tasks. */
  assertSupported(what: string): void;
  start(request: TaskStartRequest, options: RequestOptions): Promise<TaskStart>;
  /** `wake` is called when something worth a poll happened (a legacy `tasks/result` settled). */
  channel(taskId: string, wake: () => void): TaskChannel;
}
