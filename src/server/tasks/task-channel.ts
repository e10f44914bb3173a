/**
 * A task's back-channel: `ctx.elicit`, `ctx.createMessage` and `ctx.listRoots` inside a task
 * become the task's `input_required` state. Each call records its question under a key (the
 * handler's `inputKey`, else `elicit-N` / `sample-N` / `roots-N`), the record shows every
 * question still open, and the call resolves when the answer reaches the store (from any
 * process: the manager forwards the store's `watch`).
 *
 * Before the task is handed to the client (its "prelude"), a call marked `beforeTask` goes to the
 * request's own channel instead: in 2026-07-28 an `input_required` round of the `tools/call`
 * itself (the task is then created on the retry that brings the answers).
 */
import { ContextClosedError, ErrorCode, McpError } from '../../core/errors.js';
import type { JsonObject } from '../../core/jsonrpc.js';
import type { BackChannelOptions, InputChannel } from '../input-channel.js';
import type { TaskInputRequest, TaskRecord } from './task-store.js';

const KEY_PREFIX: { readonly [method: string]: string } = {
  'elicitation/create': 'elicit',
  'sampling/createMessage': 'sample',
  'roots/list': 'roots',
};

interface Waiting {
  resolve(answer: JsonObject): void;
  reject(reason: unknown): void;
}

/**
 * What the channel needs of its task: publishing the open questions and failing the task.
 *
 * @example
 * const host: TaskChannelHost = { publish: (open) => store.update(id, { status: 'input_required', inputRequests: open }), fail };
 */
export interface TaskChannelHost {
  /** Show `open` (all questions without an answer) as the task's `input_required` state. */
  publish(open: Record<string, TaskInputRequest>): Promise<void>;
  /** The handler found an answer invalid: the task fails with `error`. */
  fail(error: McpError): void;
}

/**
 * One running task's {@link InputChannel}.
 *
 * @example
 * const channel = new TaskChannel(host, controller.signal, requestChannel);
 * const answer = await channel.request('roots/list', {});
 */
export class TaskChannel implements InputChannel {
  private calls = 0;
  private readonly keys = new Set<string>();
  private readonly open: Record<string, TaskInputRequest> = Object.create(null) as Record<
    string,
    TaskInputRequest
  >;
  private readonly waiting = new Map<string, Waiting>();
  private published: Promise<void> = Promise.resolve();
  /** `beforeTask` calls sent on the request's channel and not settled yet. */
  preludePending = 0;
  private preludeListener: ((error?: unknown) => void) | undefined;

  constructor(
    private readonly host: TaskChannelHost,
    readonly signal: AbortSignal,
    /** The request's channel while the task is not yet handed out; undefined afterwards. */
    private prelude: InputChannel | undefined,
  ) {
    signal.addEventListener('abort', () => this.closeAll(signal.reason), { once: true });
  }

  /** The task was handed to the client: every question from now on is the task's. */
  endPrelude(): void {
    this.prelude = undefined;
  }

  /** Told when a `beforeTask` call settles (`error` when it failed: the round was sent instead). */
  onPrelude(listener: (error?: unknown) => void): void {
    this.preludeListener = listener;
  }

  request(method: string, params: JsonObject, options?: BackChannelOptions): Promise<JsonObject> {
    const prelude = this.prelude;
    if (prelude !== undefined && options?.beforeTask === true)
      return this.askPrelude(prelude, method, params, options);
    if (this.signal.aborted)
      // The reason is an Error of ours (cancel, shutdown) or the round's signal.
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
      return Promise.reject(this.signal.reason ?? new ContextClosedError());
    const prefix = KEY_PREFIX[method];
    if (prefix === undefined)
      return Promise.reject(
        new McpError(ErrorCode.InternalError, `${method} cannot be asked of the client inside a task`),
      );
    this.calls += 1;
    const key = options?.inputKey ?? `${prefix}-${this.calls}`;
    if (this.keys.has(key))
      return Promise.reject(new TypeError(`Input key "${key}" was used twice in one task`));
    this.keys.add(key);
    this.open[key] = { method, params };
    const answer = new Promise<JsonObject>((resolve, reject) => this.waiting.set(key, { resolve, reject }));
    // Never an unhandled rejection when the task ends with the call pending; awaiting it still throws.
    answer.catch(() => undefined);
    this.publish();
    return answer;
  }

  rejectAnswer(error: McpError): void {
    this.host.fail(error);
  }

  /** The record changed: resolve the calls whose answers arrived. */
  sawRecord(record: TaskRecord): void {
    const answers = record.inputResponses;
    if (answers === undefined) return;
    for (const [key, waiting] of [...this.waiting]) {
      if (!Object.hasOwn(answers, key)) continue;
      this.waiting.delete(key);
      delete this.open[key];
      waiting.resolve(answers[key] as JsonObject);
    }
  }

  private askPrelude(
    prelude: InputChannel,
    method: string,
    params: JsonObject,
    options: BackChannelOptions,
  ): Promise<JsonObject> {
    this.preludePending += 1;
    return prelude.request(method, params, options).then(
      (answer) => {
        this.preludePending -= 1;
        this.preludeListener?.();
        return answer;
      },
      (error: unknown) => {
        this.preludePending -= 1;
        this.preludeListener?.(error);
        throw error;
      },
    );
  }

  /** Publish in order: each update carries every question still open. */
  private publish(): void {
    // Read when it runs: a question answered meanwhile is not shown again.
    this.published = this.published
      .then(() => (Object.keys(this.open).length > 0 ? this.host.publish({ ...this.open }) : undefined))
      .catch(() => undefined);
  }

  private closeAll(reason: unknown): void {
    for (const waiting of this.waiting.values()) waiting.reject(reason ?? new ContextClosedError());
    this.waiting.clear();
  }
}
