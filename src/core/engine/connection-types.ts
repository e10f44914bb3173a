/**
 * The engine's handler signatures and options.
 */
import type { JsonObject } from '../jsonrpc.js';
import type { MessageInfo } from '../transport.js';
import type { RequestOptions } from './outbound.js';
import type { RequestContext } from './request-context.js';

/**
 * Handles one inbound request; returns the `result` object (or throws an error to send).
 *
 * @example
 * const ping: RequestHandler = () => ({});
 */
export type RequestHandler = (params: JsonObject, ctx: RequestContext) => JsonObject | Promise<JsonObject>;

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
) => void | Promise<void>;

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
   * `-32000 Connection closed` error, if the write side is still open. Default true. A transport
   * that knows why it closed (`Transport.answerOnClose`) overrides this.
   */
  answerOnClose?: boolean;
  /** Bound on those shutdown writes. Default 1 s. */
  closeWriteTimeoutMs?: number;
  /** Default options of outbound requests (`timeoutMs`, ...). */
  requestDefaults?: Pick<RequestOptions, 'timeoutMs' | 'maxTotalTimeoutMs' | 'resetTimeoutOnProgress'>;
  logger?: Logger;
}
