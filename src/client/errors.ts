/**
 * Client-side errors for answers that break the protocol. They are detected here, not sent by the
 * server, so they are {@link LocalError}s (guarantee 13: never confused with a peer's wire error).
 */
import { LocalError } from '../core/errors.js';

/**
 * The server answered, but the answer breaks the protocol (a malformed result, a cursor loop).
 *
 * @example
 * try { await client.listAllTools(); } catch (e) { if (e instanceof ProtocolViolationError) report(e.message); }
 */
export class ProtocolViolationError extends LocalError {
  override name = 'ProtocolViolationError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/**
 * A tool with an `outputSchema` returned no `structuredContent`, or content that does not match
 * the schema. `result` is the raw result, for callers that want it anyway.
 *
 * @example
 * catch (e) { if (e instanceof ToolOutputValidationError) console.error(e.toolName, e.issues); }
 */
export class ToolOutputValidationError extends ProtocolViolationError {
  override name = 'ToolOutputValidationError';
  constructor(
    readonly toolName: string,
    message: string,
    /** Human-readable validation issues (`/path: problem`). */
    readonly issues: string[],
    readonly result: unknown,
  ) {
    super(message);
  }
}

/**
 * The server speaks no protocol version this client does. Raised at `connect` (era detection)
 * or when a 2026-07-28 server refuses a request's version (`-32022`) and lists only versions this
 * client does not speak. Both lists are named.
 *
 * @example
 * catch (e) { if (e instanceof NoSharedVersionError) console.error(e.serverVersions, e.clientVersions); }
 */
export class NoSharedVersionError extends LocalError {
  override name = 'NoSharedVersionError';
  constructor(
    /** The versions the server listed. */
    readonly serverVersions: readonly string[],
    /** The versions this client speaks. */
    readonly clientVersions: readonly string[],
    options?: { cause?: unknown },
  ) {
    super(
      `No protocol version in common: the server supports ${JSON.stringify(serverVersions)}, this client ${JSON.stringify(clientVersions)}`,
      options,
    );
  }
}

/**
 * `era: 'modern'` was asked for, but the server did not answer `server/discover` as a
 * 2026-07-28 server does. `cause` is what it answered (an error, a timeout).
 *
 * @example
 * catch (e) { if (e instanceof NotModernServerError) await client.connect(transport2, {}); }
 */
export class NotModernServerError extends LocalError {
  override name = 'NotModernServerError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/**
 * A 2026-07-28 request kept answering `input_required` past the client's `maxInputRounds`.
 *
 * @example
 * catch (e) { if (e instanceof InputRoundLimitError) console.error(`${e.method}: ${e.rounds} rounds`); }
 */
export class InputRoundLimitError extends LocalError {
  override name = 'InputRoundLimitError';
  constructor(
    readonly method: string,
    readonly rounds: number,
  ) {
    super(`${method}: the server still asked for input after ${rounds} rounds (maxInputRounds)`);
  }
}

/**
 * A method 2026-07-28 removed was called on a connection in the modern era. Raised locally,
 * before anything is sent; `hint` names what to use instead.
 *
 * @example
 * catch (e) { if (e instanceof RemovedInModernEraError) console.error(e.method, e.hint); }
 */
export class RemovedInModernEraError extends LocalError {
  override name = 'RemovedInModernEraError';
  constructor(
    /** The removed method (`resources/subscribe`, ...). */
    readonly method: string,
    /** What to call instead. */
    readonly hint: string,
  ) {
    super(`${method} does not exist in 2026-07-28, the protocol of this connection: ${hint}`);
  }
}

/**
 * A subscription's consumer fell behind: more than `maxBuffered` distinct notifications were
 * waiting unread. The subscription ends `lost` with this error (it is cancelled on the wire):
 * dropping some silently would leave the consumer believing something is unchanged.
 *
 * @example
 * const end = await subscription.ended;
 * if (end.reason === 'lost' && end.error instanceof SubscriptionOverflowError) resync();
 */
export class SubscriptionOverflowError extends LocalError {
  override name = 'SubscriptionOverflowError';
  constructor(readonly maxBuffered: number) {
    super(
      `Subscription ended: more than ${maxBuffered} distinct notifications were waiting unread (maxBuffered). Read the subscription, or listen again and re-read what it covers.`,
    );
  }
}

/**
 * A 2026-07-28 method was called on a connection in the legacy era (the server answered
 * `initialize`). Raised locally, before anything is sent; `hint` names the legacy equivalent.
 *
 * @example
 * const end = await client.listen({ toolsListChanged: true }).ended;
 * if (end.reason === 'lost' && end.error instanceof ModernOnlyError) client.on('toolsChanged', refresh);
 */
export class ModernOnlyError extends LocalError {
  override name = 'ModernOnlyError';
  constructor(
    /** The 2026-07-28 method (`subscriptions/listen`). */
    readonly method: string,
    /** What to use in the legacy era instead. */
    readonly hint: string,
  ) {
    super(`${method} needs 2026-07-28; this connection speaks an earlier revision: ${hint}`);
  }
}

/**
 * `connect` could not tell the server's era: the `server/discover` probe failed in a way that
 * says nothing about the era (HTTP 5xx, a network error, no answer over HTTP in time). Nothing is
 * cached, so the next `connect` probes again. `cause` is the failure. A connection that ended
 * under the probe (a stdio server that crashed at start) is no era question: `connect` rejects
 * with a `ConnectionClosedError` that says so instead.
 *
 * @example
 * catch (e) { if (e instanceof EraDetectionError) setTimeout(() => void reconnect(), 1_000); }
 */
export class EraDetectionError extends LocalError {
  override name = 'EraDetectionError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/**
 * A task ended `cancelled` (by {@link McpClient}'s `cancel()`, the caller's signal, or someone
 * else's `tasks/cancel`): there is no result to give. `taskId` names the task.
 *
 * @example
 * try { await task.result(); } catch (e) { if (e instanceof TaskCancelledError) console.error(`cancelled task ${e.taskId}`); }
 */
export class TaskCancelledError extends LocalError {
  override name = 'TaskCancelledError';
  constructor(
    readonly taskId: string,
    message = `Task ${taskId} was cancelled`,
  ) {
    super(message);
  }
}

/**
 * The server cannot run this as a task: in 2025-11-25 it did not declare
 * `tasks.requests.tools.call`; in 2026-07-28 it did not advertise the
 * `io.modelcontextprotocol/tasks` extension. Raised locally, before anything is sent.
 *
 * @example
 * catch (e) { if (e instanceof TasksNotSupportedError) return client.callTool(name, args); }
 */
export class TasksNotSupportedError extends LocalError {
  override name = 'TasksNotSupportedError';
  constructor(message: string) {
    super(message);
  }
}
