/**
 * Local conditions of the Streamable HTTP client transport. They are {@link LocalError}s: the
 * server did not send them as JSON-RPC errors, so they must never look like one (guarantee 13).
 */
import { LocalError } from '../../../core/errors.js';

/**
 * An HTTP exchange failed in a way that is not a JSON-RPC answer: a non-2xx status without a
 * JSON-RPC error for the request, a body that is not what the content type promised, or a response
 * stream that ended before the response and could not be resumed. `status` is the HTTP status when
 * there was one.
 *
 * A request whose POST fails this way rejects with `ConnectionClosedError` whose `cause` is this
 * error; the transport stays usable for the next request.
 *
 * @example
 * catch (e) {
 *   if (e instanceof ConnectionClosedError && e.cause instanceof HttpTransportError) console.error(e.cause.status);
 * }
 */
export class HttpTransportError extends LocalError {
  override name = 'HttpTransportError';
  constructor(
    message: string,
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * The server answered 404 to a request that carried our `Mcp-Session-Id`: the session is gone
 * (expired, deleted, server restarted). The spec requires a new `initialize` without a session id;
 * until one is sent, the transport fails every other message with this error at once. The
 * clients (`Client`, `McpClient`) send that `initialize` by themselves (see docs/client.md).
 *
 * @example
 * transport.onsessionexpired = (error) => console.error(`session ${error.sessionId} ended; reconnecting`);
 */
export class SessionExpiredError extends HttpTransportError {
  override name = 'SessionExpiredError';
  /**
   * True when the request that met this error was not processed by the server: its POST was
   * answered 404, or it was never sent because the session was already known to be gone. Sending
   * it again in a new session is safe. False when the session ended while the request was being
   * answered (its response stream was lost): it may have run, so it is not resent.
   */
  readonly retryable: boolean;
  constructor(
    readonly sessionId: string,
    options: { retryable?: boolean } = {},
  ) {
    super(`The server no longer knows session ${sessionId}; initialize a new session`, 404);
    this.retryable = options.retryable ?? false;
  }
}
