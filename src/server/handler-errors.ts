/**
 * The server's `onerror` hook: handler failures reported locally (they are also answered to the
 * peer as before). One signature for the low-level `Server` and `McpServer`.
 */
import { isThenable } from '../core/engine/thenable.js';
import { McpError } from '../core/errors.js';
import type { RequestId } from '../core/jsonrpc.js';

/**
 * Where a handler failure happened.
 *
 * @example
 * const onerror: ServerErrorHandler = (error, { method, requestId, target }) =>
 *   myLogger.error({ method, requestId, target, error });
 */
export interface HandlerFailure {
  /** The method of the request (or notification) whose handler failed, e.g. `tools/call`. */
  readonly method: string;
  /** The JSON-RPC id of that request; undefined for a notification handler. */
  readonly requestId: RequestId | undefined;
  /** The session's id (`ctx.session.id`): the HTTP session id, or one the server generated. */
  readonly sessionId: string;
  /** What failed within the method: the tool or prompt name, the resource URI. */
  readonly target?: string;
}

/**
 * Receives every error a handler throws (or rejects with): tools, resource readers and listers,
 * prompts, completers, and low-level request and notification handlers. Not called for a request
 * that was already cancelled or torn down (its abort explains the failure), nor for the `-32042`
 * URL-elicitation signal or an `McpServer` reader's `resourceNotFound(uri)` (protocol answers, not
 * failures). The hook may be async; one that throws or rejects is ignored (never an unhandled
 * rejection).
 *
 * @example
 * const server = new McpServer(info, { onerror: (error, failure) => log.error(failure, error) });
 */
export type ServerErrorHandler = (error: unknown, failure: HandlerFailure) => void | Promise<void>;

/**
 * The default hook: one line on stderr through `console.error`, naming what failed and the error
 * (`Error: message`), without the stack: a tool that throws is answered with an `isError` result
 * the model can act on, which is routine, not a crash. Never stdout, which carries a stdio
 * server's protocol messages. A tool that returns `toolError(...)` is not reported at all. For the
 * stack too, use {@link logHandlerFailureWithStack}.
 *
 * @example
 * new Server(info, { onerror: logHandlerFailureToStderr }); // the same as the default
 * // [keel] tools/call "divide" failed (request 7, session 5b0c…): Error: division by zero
 */
export function logHandlerFailureToStderr(error: unknown, failure: HandlerFailure): void {
  console.error(`${failureLine(failure)} ${describeError(error)}`);
}

/**
 * {@link logHandlerFailureToStderr} with the error's stack (and `cause`) after the line, for
 * development: `console.error(line, error)`.
 *
 * @example
 * const server = new McpServer(info, { onerror: logHandlerFailureWithStack });
 */
export function logHandlerFailureWithStack(error: unknown, failure: HandlerFailure): void {
  console.error(failureLine(failure), error);
}

function failureLine(failure: HandlerFailure): string {
  const what = failure.target === undefined ? failure.method : `${failure.method} "${failure.target}"`;
  const request = failure.requestId === undefined ? 'notification' : `request ${String(failure.requestId)}`;
  return `[keel] ${what} failed (${request}, session ${failure.sessionId}):`;
}

/** `Name: message` on one line (a multi-line message is joined), or the thrown value as JSON. */
function describeError(error: unknown): string {
  let text: string;
  if (error instanceof Error) {
    // A JSON-RPC error's code says which answer the client got.
    const name = error instanceof McpError ? `${error.name} ${error.code}` : error.name;
    text = error.message ? `${name}: ${error.message}` : name;
  } else if (typeof error === 'object' && error !== null) {
    // A thrown plain object: its JSON says more than "[object Object]" (a cycle or a BigInt: not).
    try {
      text = JSON.stringify(error);
    } catch {
      text = Object.prototype.toString.call(error);
    }
  } else text = String(error);
  return text.replace(/\s*\n\s*/g, ' ');
}

/** Call `hook`, containing whatever it throws or rejects with: reporting must never break a reply. */
export function callErrorHook(
  hook: ServerErrorHandler | undefined,
  error: unknown,
  failure: HandlerFailure,
): void {
  if (!hook) return;
  try {
    const returned: unknown = hook(error, failure);
    if (returned instanceof Promise) returned.catch(() => undefined);
  } catch {
    // Contained on purpose: the hook is diagnostics; the request is answered regardless.
  }
}

/** Anything that can report a failure of user code under the current request (a `ToolContext`). */
export interface FailureReporter {
  failed(error: unknown, target?: string): void;
}

/** Run user code (a reader, prompt, completer), reporting what it throws before passing it on. */
export async function guarded<T>(
  ctx: FailureReporter,
  target: string,
  run: () => T | PromiseLike<T>,
): Promise<T> {
  return reportingFailures(run, (error) => ctx.failed(error, target));
}

/**
 * Call `run`; hand a synchronous throw or a rejection to `report`, then pass it on unchanged.
 * A synchronous result stays synchronous (no promise on the hot path of sync handlers).
 */
export function reportingFailures<T>(
  run: () => T | PromiseLike<T>,
  report: (error: unknown) => void,
): T | Promise<T> {
  const fail = (error: unknown): never => {
    report(error);
    throw error;
  };
  let returned: T | PromiseLike<T>;
  try {
    returned = run();
  } catch (error) {
    return fail(error);
  }
  return isThenable(returned) ? Promise.resolve(returned).then(undefined, fail) : returned;
}
