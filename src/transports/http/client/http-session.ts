/**
 * The HTTP side of one MCP endpoint: every `fetch` the client transport makes, with the headers
 * the spec asks for, and the session those headers carry (id, negotiated version, expiry).
 */
import { sleep } from './stream-follower.js';
import { HttpTransportError, SessionExpiredError, unreachable } from '../../../core/http-errors.js';
import { discard, mediaType, readBoundedText } from './http-body.js';
import type { StreamableHttpClientOptions } from './options.js';

const ACCEPT_POST = 'application/json, text/event-stream';

/** Resends of one request after 401/403 when the auth provider never says "give up". */
const MAX_AUTH_RETRIES = 5;
/** Characters kept of a 401/403 body handed back after the provider gave up. */
const REFUSAL_LIMIT = 64 * 1024;

/**
 * Session state and requests for one endpoint. A 404 to a request that carried the session id
 * marks the session expired ({@link expire}); only a new `initialize` ({@link reset}) clears that.
 *
 * @example
 * const http = new HttpSession(new URL('http://127.0.0.1:3000/mcp'), {}, (e) => console.error(e.message));
 * const { response } = await http.post(JSON.stringify(initializeRequest), true, signal);
 */
export class HttpSession {
  /** `Mcp-Session-Id` assigned by the initialize response. */
  id: string | undefined;
  /** The negotiated protocol version, sent as `MCP-Protocol-Version`. */
  version: string | undefined;
  /** Set once the server said the session is gone. */
  expired: SessionExpiredError | undefined;

  constructor(
    readonly url: URL,
    private readonly options: StreamableHttpClientOptions,
    private readonly onExpired: (error: SessionExpiredError) => void,
  ) {}

  /** A new `initialize` starts a new session: it goes without the old id and version. */
  reset(): void {
    this.id = undefined;
    this.version = undefined;
    this.expired = undefined;
  }

  /**
   * POST one serialized message. Returns the response and the session id the POST carried (to
   * tell "our session is gone" from other 404s).
   *
   * `modern`: the request metadata headers of a 2026-07-28 request (see modern-request.ts). Such a
   * POST belongs to no session: it carries neither the session id nor the negotiated version.
   */
  async post(
    body: string,
    initialize: boolean,
    signal: AbortSignal,
    modern?: Readonly<Record<string, string>>,
  ): Promise<{ response: Response; session: string | undefined }> {
    const session = initialize || modern ? undefined : this.id;
    const headers = await this.headers(ACCEPT_POST, session, !initialize && !modern);
    if (modern) for (const [name, value] of Object.entries(modern)) headers.set(name, value);
    headers.set('content-type', 'application/json');
    const response = await this.fetch({ method: 'POST', headers, body }, signal);
    if (initialize && response.ok) this.id = response.headers.get('mcp-session-id') ?? undefined;
    return { response, session };
  }

  /**
   * GET an SSE stream: the standalone one, or a resumption from `lastEventId`. A resumption names
   * the session its stream belongs to, which may no longer be the current one. Resolves only with
   * a 2xx `text/event-stream` response; otherwise throws an {@link HttpTransportError} (a
   * {@link SessionExpiredError} for a 404 on a session id).
   */
  async get(signal: AbortSignal, lastEventId?: string, session = this.id): Promise<Response> {
    if (this.expired && (session === undefined || session === this.expired.sessionId)) throw this.expired;
    const headers = await this.headers('text/event-stream', session, true);
    if (lastEventId !== undefined) headers.set('last-event-id', lastEventId);
    const response = await this.fetch({ method: 'GET', headers }, signal);
    if (!response.ok) {
      await discard(response);
      if (response.status === 404 && session !== undefined) throw this.expire(session);
      throw new HttpTransportError(`GET answered HTTP ${response.status}`, response.status);
    }
    const type = mediaType(response);
    if (type !== 'text/event-stream' || !response.body) {
      await discard(response);
      throw new HttpTransportError(
        `GET answered ${type ?? 'no content type'}, not an SSE stream`,
        response.status,
      );
    }
    return response;
  }

  /**
   * End the session on the server (DELETE), bounded by `timeoutMs`. Best effort: resolves with
   * what went wrong, if anything worth reporting (405 "not allowed" is not).
   */
  async delete(timeoutMs: number): Promise<unknown> {
    const session = this.expired ? undefined : this.id;
    if (session === undefined) return undefined;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    try {
      const headers = await this.headers(ACCEPT_POST, session, true);
      const response = await this.fetch({ method: 'DELETE', headers }, controller.signal);
      await discard(response);
      if (response.ok || response.status === 405) return undefined;
      return new HttpTransportError(`DELETE answered HTTP ${response.status}`, response.status);
    } catch (error) {
      return error;
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * The server answered 404 to a request carrying `session`. `retryable`: the request itself was
   * refused, unprocessed (a POST), rather than lost mid-answer (see {@link SessionExpiredError}).
   */
  expire(session: string, retryable = false): SessionExpiredError {
    const error = new SessionExpiredError(session, { retryable });
    // A 404 for a session we already replaced says nothing about the current one.
    if (this.id !== session) return error;
    // What is kept (and becomes the transport's lastError, the cause of later failures) speaks of
    // the session, not of one request: it is never "safe to resend".
    this.expired = retryable ? new SessionExpiredError(session) : error;
    this.id = undefined;
    this.onExpired(this.expired);
    return error;
  }

  /**
   * One request, authorized by `options.auth` when there is one: the provider supplies the
   * `Authorization` header, and a 401 or 403 goes to it; when it has new credentials the same
   * request is sent again (bodies here are strings, so resending is safe). The provider bounds
   * its own attempts (step-up stops after three); {@link MAX_AUTH_RETRIES} only stops a provider
   * that never gives up.
   */
  private async fetch(init: RequestInit, signal: AbortSignal): Promise<Response> {
    const retries = this.options.unavailableRetries ?? DEFAULT_UNAVAILABLE_RETRIES;
    for (let attempt = 0; ; attempt++) {
      const response = await this.fetchOnce(init, signal);
      if (response.status !== 503 || attempt >= retries) return response;
      const delayMs = retryAfterMs(response.headers.get('retry-after'));
      if (delayMs === undefined) return response;
      // Not processed (that is what the server's 503 + Retry-After says): send it again.
      await response.body?.cancel().catch(() => undefined);
      await sleep(delayMs, signal);
    }
  }

  private async fetchOnce(init: RequestInit, signal: AbortSignal): Promise<Response> {
    const given = this.options.fetch ?? globalThis.fetch;
    // A network failure names the endpoint and its cause (`ECONNREFUSED`), not just "fetch failed".
    const fetchFn = (url: URL, request: RequestInit): Promise<Response> =>
      given(url, request).catch((error: unknown) => {
        throw error instanceof TypeError && !signal.aborted ? unreachable(url, error) : error;
      });
    const auth = this.options.auth;
    if (!auth) return fetchFn(this.url, { ...this.options.requestInit, ...init, signal });
    for (let retries = 0; ; retries++) {
      const headers = new Headers(init.headers);
      if (auth.headers) {
        const method = (init.method ?? 'GET').toUpperCase();
        const given = await auth.headers({ url: this.url, method }, signal);
        for (const name in given) headers.set(name, given[name]!);
      } else {
        const authorization = await auth.authorization(this.url, signal);
        if (authorization !== undefined) headers.set('authorization', authorization);
      }
      const response = await fetchFn(this.url, { ...this.options.requestInit, ...init, headers, signal });
      const status = response.status;
      if (status !== 401 && status !== 403) auth.answered?.(this.url, response.headers);
      if ((status !== 401 && status !== 403) || retries === MAX_AUTH_RETRIES) return response;
      // Another origin's refusal after a redirect is not this server's challenge: its
      // `resource_metadata` must not steer discovery (nor our credentials) anywhere.
      if (response.redirected && new URL(response.url).origin !== this.url.origin) return response;
      const wwwAuthenticate = response.headers.get('www-authenticate') ?? undefined;
      // Read the refusal (bounded: it is for diagnostics) and free the connection first: the
      // provider may run a whole authorization flow before answering.
      const body = await readBoundedText(response, REFUSAL_LIMIT);
      const challenge = { url: this.url, status, wwwAuthenticate, headers: response.headers } as const;
      if (!(await auth.challenge(challenge, signal))) {
        return new Response(body, { status, statusText: response.statusText, headers: response.headers });
      }
    }
  }

  private async headers(accept: string, session: string | undefined, withVersion: boolean): Promise<Headers> {
    const headers = new Headers(this.options.requestInit?.headers);
    const extra =
      typeof this.options.headers === 'function' ? await this.options.headers() : this.options.headers;
    if (extra) new Headers(extra).forEach((value, key) => headers.set(key, value));
    headers.set('accept', accept);
    if (session !== undefined) headers.set('mcp-session-id', session);
    if (withVersion && this.version !== undefined) headers.set('mcp-protocol-version', this.version);
    return headers;
  }
}

/** Resends of a request answered `503` + `Retry-After` (see `unavailableRetries`). */
const DEFAULT_UNAVAILABLE_RETRIES = 3;
/** A longer `Retry-After` is not waited for: the request fails with the 503. */
const MAX_RETRY_AFTER_MS = 5_000;

/** `Retry-After` in ms (delay-seconds, or an HTTP date), when it is at most 5 s away. */
function retryAfterMs(value: string | null): number | undefined {
  if (value === null) return undefined;
  const trimmed = value.trim();
  const ms = /^\d+$/.test(trimmed) ? Number(trimmed) * 1_000 : Date.parse(trimmed) - Date.now();
  if (!Number.isFinite(ms)) return undefined;
  const delay = Math.max(0, ms);
  return delay <= MAX_RETRY_AFTER_MS ? delay : undefined;
}
