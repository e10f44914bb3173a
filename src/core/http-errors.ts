/**
 * Local conditions of the Streamable HTTP client transport. They are {@link LocalError}s: the
 * server did not send them as JSON-RPC errors, so they must never look like one (guarantee 13).
 * They live in core, beside the other error classes, because the client layer reads them too
 * (session renewal, era detection) and must not import the transport it drives. Exported from
 * `keel-mcp/http`.
 */
import { LocalError } from './errors.js';

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
  /** The endpoint, without credentials or query (set when the server could not be reached). */
  readonly url?: string;
  /** The system error code of a failed connection (`ECONNREFUSED`, `ENOTFOUND`, ...), when known. */
  readonly code?: string;
  constructor(
    message: string,
    readonly status?: number,
    options?: { cause?: unknown; url?: string | undefined; code?: string | undefined },
  ) {
    super(message, options);
    if (options?.url !== undefined) this.url = options.url;
    if (options?.code !== undefined) this.code = options.code;
  }
}

/**
 * `fetch` rejected before any response (the spec's network error: a `TypeError`, "fetch failed"
 * on Node): an {@link HttpTransportError} whose message names the endpoint and the system error
 * code found under it (undici puts it on `cause`, or on the members of an `AggregateError` when
 * every address of a host name failed). `cause` is the original error.
 *
 * @example
 * unreachable(new URL('http://127.0.0.1:3000/mcp'), error).message;
 * // "Could not reach http://127.0.0.1:3000/mcp: ECONNREFUSED (connect ECONNREFUSED 127.0.0.1:3000)"
 */
export function unreachable(url: URL, error: unknown): HttpTransportError {
  // Credentials and query strings (tokens, API keys) stay out of messages, which end up in logs.
  const where = `${url.origin}${url.pathname}`;
  const causes = networkCauses(error);
  const code = causes.map((c) => c.code).find((c) => c !== undefined);
  const details = [...new Set(causes.map((c) => c.message).filter((m) => m !== ''))].join('; ');
  const shown = details.length > 300 ? `${details.slice(0, 300)}...` : details;
  const what =
    code === undefined ? shown || describe(error) : shown && shown !== code ? `${code} (${shown})` : code;
  return new HttpTransportError(`Could not reach ${where}: ${what}`, undefined, {
    cause: error,
    url: where,
    code,
  });
}

/** The innermost errors under a fetch failure: its `cause` chain and an AggregateError's members. */
function networkCauses(error: unknown, depth = 0): { message: string; code?: string | undefined }[] {
  if (!(error instanceof Error) || depth > 4) return [];
  const below =
    error instanceof AggregateError
      ? error.errors.flatMap((member) => networkCauses(member, depth + 1))
      : networkCauses(error.cause, depth + 1);
  if (below.length > 0) return below;
  const code = (error as { code?: unknown }).code;
  return [{ message: error.message, code: typeof code === 'string' ? code : undefined }];
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message || error.name : String(error);
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
