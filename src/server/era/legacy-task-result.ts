/**
 * 2025-11-25 `tasks/result`: wait until the task is terminal, then answer exactly what its
 * `tools/call` would have (the CallToolResult, or its JSON-RPC error), with the related-task
 * `_meta`. While waiting, every question open in the record's `inputRequests` is sent to the client
 * as a nested request on this `tasks/result` (over HTTP: on its SSE stream) and the answer is
 * posted to the manager as `tasks/update` would. The record is the queue, so this works on any
 * process that shares the store, not only on the one running the work.
 *
 * The wait is bounded by the request itself: its signal (a `notifications/cancelled`, the
 * connection closing, shutdown) ends it and removes the store listener and the timer.
 */
import type { RequestContext } from '../../core/engine/request-context.js';
import { ErrorCode, McpError } from '../../core/errors.js';
import { isJsonObject, type JsonObject } from '../../core/jsonrpc.js';
import { checkAnswer } from '../modern/input-answers.js';
import { isTerminal } from '../tasks/memory-task-store.js';
import type { TaskManager } from '../tasks/task-manager.js';
import type { TaskInputRequest, TaskRecord } from '../tasks/task-store.js';

/** The `_meta` key that ties a message to its task (2025-11-25). */
export const RELATED_TASK = 'io.modelcontextprotocol/related-task';

/**
 * The answer of `tasks/result` for `id` (see the file comment).
 *
 * @example
 * const result = await awaitTaskResult(manager, taskId, owner, ctx); // { content, _meta: { [RELATED_TASK]: { taskId } } }
 */
export async function awaitTaskResult(
  tasks: TaskManager,
  id: string,
  owner: string,
  ctx: RequestContext,
): Promise<JsonObject> {
  const record = await tasks.get(id, owner);
  return payload(isTerminal(record.status) ? record : await new ResultWait(tasks, id, owner, ctx).done);
}

function withRelated(meta: unknown, taskId: string): JsonObject {
  return { ...(isJsonObject(meta) ? meta : {}), [RELATED_TASK]: { taskId } };
}

function payload(record: TaskRecord): JsonObject {
  // `completed`, and 2025-11-25's `failed` for an isError result: the CallToolResult itself.
  if (record.result !== undefined)
    return { ...record.result, _meta: withRelated(record.result._meta, record.id) };
  if (record.status === 'failed') {
    const error = record.error ?? { code: ErrorCode.InternalError, message: 'The task failed' };
    throw new McpError(error.code, error.message, error.data);
  }
  throw new McpError(ErrorCode.InternalError, `Task ${record.id} was cancelled: it has no result`);
}

/** One `tasks/result` waiting: store listener, lease re-check timer and abort listener, all removed at the end. */
class ResultWait {
  readonly done: Promise<TaskRecord>;
  private resolve!: (record: TaskRecord) => void;
  private reject!: (reason: unknown) => void;
  private settled = false;
  private checking = false;
  private again = false;
  /** Keys asked on this request: each once. */
  private readonly sent = new Set<string>();
  private readonly unwatch: () => void;
  private readonly timer: ReturnType<typeof setInterval>;
  private readonly onAbort = (): void => this.end(undefined, this.ctx.signal.reason ?? new Error('aborted'));

  constructor(
    private readonly tasks: TaskManager,
    private readonly id: string,
    private readonly owner: string,
    private readonly ctx: RequestContext,
  ) {
    this.done = new Promise<TaskRecord>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    this.unwatch = tasks.store.watch((changed) => {
      if (changed === id) this.check();
    });
    // A runner that died changes nothing in the store: reading again applies the lease rule.
    this.timer = setInterval(() => this.check(), Math.max(1, tasks.limits.leaseMs));
    this.timer.unref?.();
    ctx.signal.addEventListener('abort', this.onAbort, { once: true });
    if (ctx.signal.aborted) this.onAbort();
    else this.check();
  }

  private check(): void {
    if (this.settled) return;
    if (this.checking) {
      this.again = true;
      return;
    }
    this.checking = true;
    this.tasks.get(this.id, this.owner).then(
      (record) => {
        this.checking = false;
        if (isTerminal(record.status)) return this.end(record, undefined);
        for (const [key, question] of Object.entries(record.inputRequests ?? {})) this.ask(key, question);
        if (this.again) {
          this.again = false;
          this.check();
        }
      },
      (error: unknown) => {
        this.checking = false;
        this.end(undefined, error);
      },
    );
  }

  private ask(key: string, question: TaskInputRequest): void {
    if (this.settled || this.sent.has(key)) return;
    this.sent.add(key);
    const params = { ...question.params, _meta: withRelated(question.params._meta, this.id) };
    this.ctx
      .request(question.method, params)
      .then((answer) => {
        checkAnswer(question.method, key, answer);
        // The store ignores a key no longer open (answered through another tasks/result or tasks/update).
        return this.tasks.answer(this.id, this.owner, { [key]: answer });
      })
      .catch((error: unknown) => {
        // The client could not answer: this request ends with why; a later tasks/result asks again.
        this.end(undefined, error);
      });
  }

  private end(record: TaskRecord | undefined, error: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.unwatch();
    clearInterval(this.timer);
    this.ctx.signal.removeEventListener('abort', this.onAbort);
    if (record !== undefined) this.resolve(record);
    else this.reject(error);
  }
}
