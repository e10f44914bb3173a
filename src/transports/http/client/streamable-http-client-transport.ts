/**
 * The fetch-based Streamable HTTP client transport, both eras: 2026-07-28 requests (decided per
 * message, from `params._meta`) and the legacy revisions (2025-11-25, 2025-06-18, 2025-03-26).
 * Runtime-neutral: it needs only `fetch`, `Headers`, `Response` and web streams.
 */
import { ConnectionClosedError } from '../../../core/errors.js';
import { Inbox } from '../../../core/inbox.js';
import {
  isRequestId,
  type JsonRpcMessage,
  type JsonRpcRequest,
  type RequestId,
} from '../../../core/jsonrpc.js';
import type { MessageInfo, SendOptions, Transport } from '../../../core/transport.js';
import { HttpTransportError, SessionExpiredError } from './errors.js';
import { discard, isObject, mediaType, tryParseJson } from './http-body.js';
import { readJsonMessages, readRefusal } from './post-answers.js';
import { HttpSession } from './http-session.js';
import { modernHeaders, modernVersionOf } from './modern-request.js';
import { reconnectPolicy, type StreamableHttpClientOptions } from './options.js';
import { OutboundTable, type OutboundRequest } from './outbound-table.js';
import { StandaloneStream } from './standalone-stream.js';
import { followStream, type StreamSettings } from './stream-follower.js';

const CLOSED = 'The Streamable HTTP transport is closed';

/**
 * Streamable HTTP client transport.
 *
 * - Every message is a POST. A request's answer comes back as JSON or as an SSE stream; SSE
 *   streams are followed until the response arrives, and resumed with GET + `Last-Event-ID` after
 *   the server's `retry` delay (else backoff) when the connection drops early.
 * - Protocol version: detected from the `initialize` result as it passes through, then sent as
 *   `MCP-Protocol-Version` on every later request ({@link setProtocolVersion} overrides it).
 * - Session: `Mcp-Session-Id` is taken from the initialize response and echoed afterwards. A 404 to
 *   a request carrying it means the session is gone: the message fails with
 *   {@link SessionExpiredError}, {@link onsessionexpired} fires once, requests still streaming in
 *   that session fail at once, and every message except a new `initialize` (sent without session
 *   id, as the spec requires) fails fast until then. `Client` sends that `initialize` by itself.
 * - A message read on a POST's SSE stream (or on a GET resuming it) reports that POST's request
 *   as `messageInfo(message).relatedRequestId`: giving up that request aborts the client's
 *   handlers for the server requests it brought.
 * - Failures stay in their request: an HTTP error without a JSON-RPC answer rejects that `send`;
 *   a response stream that ends and cannot be resumed reports {@link onrequestlost} (the engine
 *   rejects that one request with `ConnectionClosedError`). Nothing fake is pushed as if the server
 *   had said it.
 * - After `notifications/initialized` a standalone GET stream is opened; any refusal (405, 400, ...)
 *   just means no such stream. `notifications/cancelled` also stops reading the cancelled
 *   request's stream. `close()` aborts every fetch and reader, then DELETEs the session (bounded,
 *   best effort).
 * - 2026-07-28: a request whose `params._meta` carries `io.modelcontextprotocol/protocolVersion`
 *   is POSTed outside any session: no `Mcp-Session-Id`, `MCP-Protocol-Version` = that version,
 *   `Mcp-Method`, `Mcp-Name` (Base64 form when needed), plus `SendOptions.headers` (`Mcp-Param-*`;
 *   legacy messages ignore them). Its stream is never resumed (lost if it breaks early); a
 *   `notifications/cancelled` for it aborts its POST and is not sent; other notifications are
 *   dropped until a legacy request (`initialize`) was sent. A refusal without a JSON-RPC error for
 *   it rejects `send` with {@link HttpTransportError} and leaves the transport as it was, so the
 *   caller may fall back to `initialize` on it. See docs/http.md.
 *
 * @example
 * const client = new Client({ name: 'cli', version: '1.0.0' });
 * await client.connect(new StreamableHttpClientTransport('http://127.0.0.1:3000/mcp'));
 * const tools = await client.request('tools/list', {});
 * await client.close(); // also DELETEs the session
 */
export class StreamableHttpClientTransport implements Transport {
  lastError: unknown;
  /** Set by the engine: the answer to request `id` can no longer arrive. */
  onrequestlost: ((id: RequestId, cause?: unknown) => void) | undefined;
  /**
   * Called once when the server reports the session gone (404). `Client` and `McpClient` then
   * start a new session by themselves (their `renewSession` option).
   */
  onsessionexpired: ((error: SessionExpiredError) => void) | undefined;
  /** Diagnostics for what the transport absorbs (a refused GET stream, an unreadable event). */
  onerror: ((error: unknown) => void) | undefined;

  private readonly inbox = new Inbox<unknown>();
  private readonly http: HttpSession;
  private readonly streams: StreamSettings;
  private readonly standalone: StandaloneStream;
  private readonly outbound = new OutboundTable();
  /** Messages that came on a request's response stream, with the id of that request. */
  private readonly related = new WeakMap<object, MessageInfo>();
  private readonly expiryWatchers = new Set<(sessionId: string) => void>();
  private closed = false;
  /** A legacy request (`initialize`, usually) was sent: notifications have somewhere to go. */
  private legacySpoken = false;
  private closing: Promise<void> | undefined;

  constructor(
    url: string | URL,
    private readonly options: StreamableHttpClientOptions = {},
  ) {
    this.http = new HttpSession(new URL(url), options, (error) => this.sessionExpired(error));
    this.serverKey = this.http.url.origin + this.http.url.pathname;
    this.streams = {
      policy: reconnectPolicy(options.reconnect),
      maxEventSize: options.maxEventSize ?? 16 * 1024 * 1024,
      onData: (data) => this.onEventData(data),
    };
    this.standalone = new StandaloneStream(this.http, this.streams, (error) => this.report(error));
  }

  get url(): URL {
    return this.http.url;
  }

  /**
   * Which server this transport talks to, for caching what was learned about it (its era): the
   * endpoint URL's origin and path, without query or fragment.
   *
   * @example
   * new StreamableHttpClientTransport('https://example.com:8443/mcp?x=1').serverKey; // 'https://example.com:8443/mcp'
   */
  readonly serverKey: string;

  /** The session id the server assigned at initialization, if any. */
  get sessionId(): string | undefined {
    return this.http.id;
  }

  get writable(): boolean {
    return !this.closed;
  }

  /** The negotiated protocol version sent as `MCP-Protocol-Version` (detected from initialize). */
  get protocolVersion(): string | undefined {
    return this.http.version;
  }

  /**
   * Be told (after {@link onsessionexpired}) each time the server forgets the current session, by
   * a 404 to any request: a POST, or a GET stream. `Client` uses it to start a new session at once,
   * even when no call of its own met the 404. Returns a function that stops watching.
   *
   * @example
   * const stop = transport.watchSessionExpiry((id) => console.error(`session ${id} is gone`));
   */
  watchSessionExpiry(listener: (sessionId: string) => void): () => void {
    this.expiryWatchers.add(listener);
    return () => void this.expiryWatchers.delete(listener);
  }

  /** Override the version header, for a caller that negotiated the version some other way. */
  setProtocolVersion(version: string | undefined): void {
    this.http.version = version;
    if (version !== undefined) this.legacySpoken = true;
  }

  [Symbol.asyncIterator](): AsyncIterator<unknown> {
    return this.inbox;
  }

  /**
   * A message read on the SSE stream of one of our POSTs (or on a GET resuming that stream) names
   * that POST's request as `relatedRequestId`: when the engine gives up on that request, it aborts
   * the handlers of such server→client requests instead of answering into a dead exchange.
   */
  messageInfo(message: object): MessageInfo | undefined {
    return this.related.get(message);
  }

  async send(message: JsonRpcMessage, options?: SendOptions): Promise<void> {
    if (this.closed) throw new ConnectionClosedError(CLOSED, { cause: this.lastError });
    const version = modernVersionOf(message);
    if (version !== undefined) {
      // 2026-07-28: decided by the message itself; no session, no handshake, nothing remembered.
      const request = message as JsonRpcRequest;
      return this.exchange(message, request, false, modernHeaders(request, version, options?.headers));
    }
    const request = 'method' in message && 'id' in message ? message : undefined;
    const method = 'method' in message ? message.method : undefined;
    if (method === 'notifications/cancelled' && 'params' in message) {
      const id = message.params?.requestId;
      const modern = this.outbound.isModern(id);
      // The caller gave up on that request: stop reading its stream. For a 2026-07-28 request the
      // closed stream is the cancellation (the server cancels its handler); nothing is POSTed.
      this.outbound.stop(id);
      if (modern) return;
    }
    if (request) {
      this.legacySpoken = true;
    } else if (!this.legacySpoken) {
      // Without a legacy exchange there is nothing to POST a notification (or response) to:
      // 2026-07-28 HTTP defines no client notifications. Dropped here, on purpose.
      return;
    }
    const initialize = method === 'initialize';
    if (initialize) {
      this.http.reset();
      this.standalone.stop();
    } else if (this.http.expired) {
      // Not sent at all: safe to send again once a new session exists.
      throw new SessionExpiredError(this.http.expired.sessionId, { retryable: true });
    }
    return this.exchange(message, request, initialize, undefined);
  }

  /** POST one message and read its answer; `modern` holds a 2026-07-28 request's headers. */
  private async exchange(
    message: JsonRpcMessage,
    request: JsonRpcRequest | undefined,
    initialize: boolean,
    modern: Record<string, string> | undefined,
  ): Promise<void> {
    const method = 'method' in message ? message.method : undefined;
    const entry = this.outbound.open(request?.id, initialize, modern !== undefined);
    let followed = false;
    try {
      let posted: Awaited<ReturnType<HttpSession['post']>>;
      try {
        posted = await this.http.post(JSON.stringify(message), initialize, entry.controller.signal, modern);
      } catch (error) {
        throw this.sendFailed(error, entry.controller.signal);
      }
      const { response, session } = posted;
      if (!response.ok) return await this.refused(response, request?.id, session, entry.modern);
      if (!request) {
        // Notifications and responses are answered 202 (some servers send a body anyway: ignored).
        await discard(response);
        if (method === 'notifications/initialized' && this.options.openGetStream !== false) {
          this.standalone.open();
        }
        return;
      }
      const type = mediaType(response);
      if (type === 'text/event-stream' && response.body) {
        followed = true;
        entry.stream = { session };
        void this.followRequest(request.id, entry, response, session);
      } else if (type === 'application/json') {
        for (const answer of await readJsonMessages(response)) this.deliver(answer);
      } else {
        await discard(response);
        if (type !== undefined && response.status !== 202 && response.status !== 204) {
          throw new HttpTransportError(`Unexpected content type ${type} for a request`, response.status);
        }
      }
    } finally {
      if (!followed) this.outbound.release(request?.id, entry);
    }
  }

  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    this.closed = true;
    this.inbox.end();
    this.outbound.abortAll();
    this.standalone.stop();
    const failure = await this.http.delete(this.options.closeTimeoutMs ?? 2_000);
    if (failure !== undefined) this.report(failure);
  }

  /** A non-2xx answer to a POST: the JSON-RPC error for the request if there is one, else a local error. */
  private async refused(
    response: Response,
    id: RequestId | undefined,
    session: string | undefined,
    modern: boolean,
  ): Promise<void> {
    const refusal = await readRefusal(response, id);
    // The session is gone, whatever the body says: the server did not process this POST.
    if (response.status === 404 && session !== undefined) throw this.http.expire(session, true);
    if ('answer' in refusal) return this.deliver(refusal.answer);
    // A 2026-07-28 request refused without a JSON-RPC answer is what a legacy server says to an
    // era probe: the caller gets it (and falls back); it is no fault of the transport's.
    if (modern) throw refusal.error;
    throw this.fail(refusal.error);
  }

  private async followRequest(
    id: RequestId,
    entry: OutboundRequest,
    response: Response,
    session: string | undefined,
  ): Promise<void> {
    // Resume within the session the request was made in, even if a new one started meanwhile.
    // 2026-07-28 has no GET: a modern request's stream that breaks early is lost.
    const reopen = entry.modern
      ? undefined
      : (lastEventId: string | undefined, signal: AbortSignal): Promise<Response> =>
          this.http.get(signal, lastEventId, session);
    const onData = (data: string): void => this.onEventData(data, id);
    const host = { ...this.streams, onData, reopen };
    const result = await followStream(host, response, entry.controller.signal, () => entry.answered, true);
    this.outbound.release(id, entry);
    if (result.lost) this.lose(id, result.cause);
  }

  /** The answer to `id` can no longer arrive: the engine fails that request alone. */
  private lose(id: RequestId, cause: Error): void {
    if (this.closed) return;
    this.fail(cause);
    this.safely(() => this.onrequestlost?.(id, cause));
  }

  private onEventData(data: string, relatedRequestId?: RequestId): void {
    const message = tryParseJson(data);
    if (message === undefined) this.report(new HttpTransportError('Dropped an SSE event that is not JSON'));
    else this.deliver(message, relatedRequestId);
  }

  /** Every inbound message passes here: it marks its request answered and learns the version. */
  private deliver(message: unknown, relatedRequestId?: RequestId): void {
    if (relatedRequestId !== undefined && isObject(message)) this.related.set(message, { relatedRequestId });
    if (isObject(message) && message.method === undefined && isRequestId(message.id)) {
      const entry = this.outbound.get(message.id);
      if (entry) {
        entry.answered = true;
        const result = message.result;
        if (entry.initialize && isObject(result) && typeof result.protocolVersion === 'string') {
          this.http.version = result.protocolVersion;
        }
      }
    }
    this.inbox.push(message);
  }

  private sessionExpired(error: SessionExpiredError): void {
    this.lastError = error;
    this.standalone.stop();
    // The streams still open in that session can no longer bring their answers (the server ended
    // its handlers with the session): fail those requests now rather than wait for the streams.
    for (const id of this.outbound.takeStreaming(error.sessionId)) {
      this.lose(id, new SessionExpiredError(error.sessionId));
    }
    this.safely(() => this.onsessionexpired?.(error));
    for (const watcher of [...this.expiryWatchers]) this.safely(() => watcher(error.sessionId));
  }

  /** Run a user hook: its failure is reported, never thrown into the transport. */
  private safely(hook: () => void): void {
    try {
      hook();
    } catch (error) {
      this.report(error);
    }
  }

  private sendFailed(error: unknown, signal: AbortSignal): unknown {
    if (!signal.aborted) return this.fail(error);
    return new ConnectionClosedError(this.closed ? CLOSED : 'The request was cancelled', { cause: error });
  }

  private fail<E>(error: E): E {
    this.lastError = error;
    this.report(error);
    return error;
  }

  private report(error: unknown): void {
    try {
      this.onerror?.(error);
    } catch {
      // A diagnostics hook must not break the transport.
    }
  }
}
