/**
 * The engine's handler signatures and options.
 */
import type { JsonObject } from '../jsonrpc.js';
import type { MessageInfo } from '../transport.js';
import type { RequestOptions } from './outbound.js';
import type { RequestContext } from './request-context.js';

/**
 * Handles one inbound request; returns the `result` object, or a promise or any other thenable of
 * it (or throws / rejects with an error to send).
 *
 * @example
 * const ping: RequestHandler = () => ({});
 */
export type RequestHandler = (
  params: JsonObject,
  ctx: RequestContext,
) => JsonObject | Promise<JsonObject> | PromiseLike<JsonObject>;

/**
 * Handles one inbound notification. Throwing (or rejecting) is contained and logged.
 *
 * @example
 * const onInitialized: NotificationHandler = () => console.error('ready');
 */
export type NotificationHandler = (
  params: JsonObject,
  info: MessageInfo | undefined,
  method: string,
) => void | Promise<void> | PromiseLike<void>;

/**
 * Where the engine reports what it drops. Defaults to silence; never stdout.
 *
 * @example
 * const logger: Logger = { debug() {}, error: (message, detail) => console.error(message, detail) };
 * await serveStdio(server, { logger });
 */
export interface Logger {
  debug(message: string, detail?: unknown): void;
  error(message: string, detail?: unknown): void;
}

/**
 * @example
 * new Connection(transport, { drainMs: 2_000, logger: { debug() {}, error: console.error } });
 */
export interface ConnectionOptions {
  /**
   * On EOF, let in-flight handlers finish for up to this long before aborting them (for batch use,
   * `server < requests.jsonl > out.jsonl`). Default 0: abort at once. During the drain nothing is
   * read, outbound requests fail at once with `ConnectionClosedError` (no answer can arrive any
   * more), and a local `close()` ends the drain.
   */
  drainMs?: number;
  /**
   * On close, answer each request that is still unanswered (and not cancelled by the peer) with one
   * `-32000 Connection closed` error, if the write side is still open. Default: yes on a local
   * `close()` (the peer may still be reading), no after the peer's EOF (it is leaving; an answer
   * during its teardown has crashed real clients). `true` answers after EOF too, for clients that
   * half-close and keep reading. A transport that knows why it closed (`Transport.answerOnClose`)
   * overrides both.
   */
  answerOnClose?: boolean | undefined;
  /**
   * Handlers that may run at once on this connection. Default 1024. Further requests wait in
   * arrival order without running (notifications, cancels included, are still read and handled; a
   * cancelled waiting request never runs and gets no answer).
   */
  maxInflight?: number;
  /**
   * Requests that may wait for a handler slot. Default 4 × `maxInflight`. At the bound the engine
   * stops reading the transport until one starts (stdio then stops reading stdin: backpressure),
   * for at most `queueWaitMs`.
   */
  maxQueued?: number;
  /**
   * How long the engine stops reading at the `maxQueued` bound before it reads on anyway. Running
   * handlers may be waiting for exactly what is unread (a cancel, EOF): reading on keeps cancels and
   * close working. While the queue stays full after that, each new request is refused at once with
   * `-32010 Server busy` (it never runs); once a queued request starts, backpressure resumes.
   * Default 1,000 ms.
   */
  queueWaitMs?: number;
  /** Bound on those shutdown writes. Default 1 s. */
  closeWriteTimeoutMs?: number;
  /**
   * @internal Told of each inbound item that is no usable JSON-RPC message (an `InboundFault`:
   * not JSON, not UTF-8, over the size limit; or a JSON value that is no request, notification or
   * response), after the engine dealt with it as always (answered when the spec says so). The
   * clients use it to report a server that writes other things on stdout, once per connection.
   */
  onInvalidMessage?: (item: unknown) => void;
  /** Default options of outbound requests (`timeoutMs`, ...). */
  requestDefaults?: Pick<RequestOptions, 'timeoutMs' | 'maxTotalTimeoutMs' | 'resetTimeoutOnProgress'>;
  logger?: Logger | undefined;
}
