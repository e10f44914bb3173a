/**
 * A `tools/call` run as a task: the record is created first (so an immediate `tasks/get`
 * resolves), the same tool handler runs in the background with a context whose signal, progress
 * and back-channel belong to the task, and the call is answered with the era's task result.
 *
 * MRTR composition (2026-07-28): back-channel calls marked `beforeTask` are asked on the
 * request's own channel while the task is not yet handed out. The call is answered one macrotask
 * after the handler started, once no such question is pending; if one needs an answer the client
 * has not given, the request's channel answers with its `input_required` round instead, the task
 * is dropped before anyone saw it, and the retry (which brings the answers) starts it again.
 */
import { McpError } from '../../core/errors.js';
import type { JsonObject } from '../../core/jsonrpc.js';
import type { HandlerRequest } from '../handler-request.js';
import type { ToolContext } from '../tool-context.js';
import type { TaskManager, TaskRun } from './task-manager.js';
import { TaskRequestContext } from './task-request-context.js';

/**
 * The handler's view of the request inside a task: the same facts, except that an McpError the
 * handler throws fails the task (`failed` carries JSON-RPC errors) instead of becoming an
 * `isError` result.
 */
function taskHandlerRequest(request: HandlerRequest): HandlerRequest {
  const view = Object.create(request) as HandlerRequest & {
    wireErrorFor(error: unknown): McpError | undefined;
  };
  view.wireErrorFor = (error: unknown) => (error instanceof McpError ? error : request.wireErrorFor(error));
  return view;
}

/**
 * Start `run` (the tool's usual run) as a task of `ctx`'s request and answer with the era's
 * task result.
 *
 * @example
 * return startToolTask(ctx, tasks, params, (taskCtx) => runTool(name, entry, args, taskCtx));
 */
export async function startToolTask(
  ctx: ToolContext,
  tasks: TaskManager,
  params: JsonObject,
  run: (taskCtx: ToolContext) => JsonObject | Promise<JsonObject>,
): Promise<JsonObject> {
  const wire = ctx.taskWire;
  const origin = ctx.requestContext;
  const record = await tasks.create(
    wire.owner(origin),
    origin.method,
    wire.format,
    wire.requestedTtlMs(params),
  );
  const handlerRequest = taskHandlerRequest(ctx.handlerRequestView);
  const work = (task: TaskRun): JsonObject | Promise<JsonObject> => {
    const request = new TaskRequestContext(origin, task.signal, (message) => task.progress(message));
    return run(ctx.forTask(request, task.channel, handlerRequest));
  };
  const task = tasks.launch(record, ctx.backChannel, work);
  await handedOut(task, tasks, record.id);
  const current = await tasks.store.get(record.id);
  wire.announce(current ?? record, tasks);
  return wire.created(current ?? record);
}

/** Resolves when the task may be handed out; rejects (dropping the task) when a round went instead. */
function handedOut(task: TaskRun, tasks: TaskManager, id: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let settled = false;
    const check = (error?: unknown): void => {
      if (settled) return;
      if (error !== undefined) {
        settled = true;
        // The client never saw this task: it goes, and its work stops.
        void tasks.discard(id, error);
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the round's own reason
        reject(error);
        return;
      }
      if (task.channel.preludePending > 0) return;
      settled = true;
      task.channel.endPrelude();
      resolve();
    };
    task.channel.onPrelude(check);
    // One macrotask: the questions the handler asks before it blocks are all asked by then.
    setTimeout(() => check(), 0);
  });
}
