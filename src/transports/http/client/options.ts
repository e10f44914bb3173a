/**
 * Options of the Streamable HTTP client transport, with their defaults.
 */
import type { HttpAuthProvider } from '../../../core/auth.js';

/**
 * How dropped SSE streams are reconnected.
 *
 * @example
 * new StreamableHttpClientTransport(url, { reconnect: { maxAttempts: 5, initialDelayMs: 500 } });
 */
export interface ReconnectOptions {
  /**
   * Consecutive reconnection attempts that bring nothing (a failed GET, or a stream that ends
   * without a single event) before the stream is given up. Default 3.
   */
  maxAttempts?: number;
  /** Delay before the first reconnection when the server sent no `retry:` field. Default 1000 ms. */
  initialDelayMs?: number;
  /** Cap of the exponential backoff (doubling per attempt). Default 30 000 ms. */
  maxDelayMs?: number;
}

/**
 * @example
 * new StreamableHttpClientTransport('https://example.com/mcp', {
 *   headers: () => ({ Authorization: `Bearer ${getToken()}` }),
 *   reconnect: { maxAttempts: 5 },
 * });
 */
export interface StreamableHttpClientOptions {
  /** The `fetch` to use (a mock, or one with a custom dispatcher). Default: `globalThis.fetch`. */
  fetch?: typeof globalThis.fetch;
  /**
   * Authorization of every request (POST, GET, DELETE): the provider's `Authorization` header is
   * sent, and a 401 or 403 goes to the provider, which may obtain new credentials (an OAuth flow,
   * a refresh, a step-up) before the request is sent again. See docs/auth.md.
   */
  auth?: HttpAuthProvider | undefined;
  /** Extra headers on every request (e.g. `Authorization`); a function is called per request. */
  headers?: HeadersInit | (() => HeadersInit | Promise<HeadersInit>);
  /**
   * Extra `fetch` options for every request (credentials, dispatcher, ...). `method`, `body` and
   * `signal` are always the transport's own; its `headers` are merged under {@link headers}.
   */
  requestInit?: RequestInit;
  reconnect?: ReconnectOptions;
  /**
   * How many times a request answered `503` with a `Retry-After` of at most 5 s is sent again,
   * after that delay. Such an answer says the server did not process it (Keel: a process shutting
   * down with no peer to pass it to, a shared store briefly unavailable), so resending is safe.
   * 0 turns it off. Default 3.
   */
  unavailableRetries?: number;
  /** Bound on the session DELETE sent by `close()`. Default 2000 ms. */
  closeTimeoutMs?: number;
  /** Largest SSE event accepted, in characters; a larger one breaks its stream. Default 16 Mi. */
  maxEventSize?: number;
  /**
   * Largest `application/json` answer accepted, in bytes: the JSON counterpart of
   * {@link maxEventSize}. Reading stops as soon as an answer is larger (or announces a larger
   * `Content-Length`); that request fails with an `HttpTransportError` naming the limit, and
   * the transport stays usable for the others. Default 16 MiB.
   */
  maxJsonSize?: number;
  /** Open the standalone GET stream after `notifications/initialized`. Default true. */
  openGetStream?: boolean;
}

/**
 * The reconnection policy with every default filled in.
 *
 * @example
 * const policy: ReconnectPolicy = reconnectPolicy({ maxAttempts: 5 });
 */
export interface ReconnectPolicy {
  maxAttempts: number;
  initialDelayMs: number;
  maxDelayMs: number;
}

/**
 * Fill in the defaults of {@link ReconnectOptions}.
 *
 * @example
 * reconnectPolicy(undefined); // { maxAttempts: 3, initialDelayMs: 1000, maxDelayMs: 30000 }
 */
export function reconnectPolicy(options: ReconnectOptions | undefined): ReconnectPolicy {
  return {
    maxAttempts: options?.maxAttempts ?? 3,
    initialDelayMs: options?.initialDelayMs ?? 1_000,
    maxDelayMs: options?.maxDelayMs ?? 30_000,
  };
}

/**
 * Delay before reconnection attempt `attempt` (0-based). The server's `retry:` wins: the spec says
 * the client MUST wait exactly that long.
 *
 * @example
 * reconnectDelay(reconnectPolicy(undefined), 2, undefined); // 4000
 * reconnectDelay(reconnectPolicy(undefined), 2, 500); // 500
 */
export function reconnectDelay(
  policy: ReconnectPolicy,
  attempt: number,
  retryMs: number | undefined,
): number {
  if (retryMs !== undefined) return retryMs;
  return Math.min(policy.initialDelayMs * 2 ** attempt, policy.maxDelayMs);
}
