/**
 * The fetch-based Streamable HTTP client transport, both eras: 2026-07-28 requests (decided per
 * message, from `params._meta`) and the legacy revisions (2025-11-25, 2025-06-18, 2025-03-26).
 * Runtime-neutral: it needs only `fetch`, `Headers`, `Response` and web streams.
 */
import { ConnectionClosedError } from '../../../core/errors.js';
import type { JsonRpcMessage, JsonRpcRequest, RequestId } from '../../../core/jsonrpc.js';
import type { MessageInfo, SendOptions, Transport } from '../../../core/transport.js';
import { SessionExpiredError } from '../../../core/http-errors.js';
import { HttpSession } from './http-session.js';
import { InboundMessages } from './inbound-messages.js';
import { modernHeaders, modernVersionOf } from './modern-request.js';
import { reconnectPolicy, type StreamableHttpClientOptions } from './options.js';
import { OutboundTable } from './outbound-table.js';
import { CLOSED, exchange, type ExchangeHost } from './post-exchange.js';
import { StandaloneStream } from './standalone-stream.js';
import type { StreamSettings } from './stream-follower.js';

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
 *   legacy messages ignore them). Its stream is never resumed (lost if it breaks early), and a
 *   2xx answer that ends without its response (202, 204, an empty JSON body, JSON for another id)
 *   loses it at once through {@link onrequestlost} (there is no GET stream to bring it); a
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

  private readonly http: HttpSession;
  private readonly streams: StreamSettings;
  private readonly standalone: StandaloneStream;
  private readonly outbound = new OutboundTable();
  private readonly inbound: InboundMessages;
  /** What each POST exchange (post-exchange.ts) uses of this transport. */
  private readonly host: ExchangeHost;
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
    const report = (error: unknown): void => this.report(error);
    this.inbound = new InboundMessages(this.outbound, this.http, report);
    this.streams = {
      policy: reconnectPolicy(options.reconnect),
      maxEventSize: options.maxEventSize ?? 16 * 1024 * 1024,
      onData: (data) => this.inbound.onEventData(data),
    };
    this.standalone = new StandaloneStream(this.http, this.streams, report);
    this.host = {
      http: this.http,
      outbound: this.outbound,
      streams: this.streams,
      inbound: this.inbound,
      maxJsonSize: options.maxJsonSize ?? 16 * 1024 * 1024,
      isClosed: () => this.closed,
      openStandalone: () => {
        if (options.openGetStream !== false) this.standalone.open();
      },
      fail: (error) => this.fail(error),
      lose: (id, cause) => this.lose(id, cause),
    };
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
    return this.inbound.inbox;
  }

  /**
   * A message read on the SSE stream of one of our POSTs (or on a GET resuming that stream) names
   * that POST's request as `relatedRequestId`: when the engine gives up on that request, it aborts
   * the handlers of such server→client requests instead of answering into a dead exchange.
   */
  messageInfo(message: object): MessageInfo | undefined {
    return this.inbound.info(message);
  }

  async send(message: JsonRpcMessage, options?: SendOptions): Promise<void> {
    if (this.closed) throw new ConnectionClosedError(CLOSED, { cause: this.lastError });
    const version = modernVersionOf(message);
    if (version !== undefined) {
      // 2026-07-28: decided by the message itself; no session, no handshake, nothing remembered.
      const request = message as JsonRpcRequest;
      return exchange(this.host, message, request, false, modernHeaders(request, version, options?.headers));
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
    return exchange(this.host, message, request, initialize, undefined);
  }

  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    this.closed = true;
    this.inbound.inbox.end();
    this.outbound.abortAll();
    this.standalone.stop();
    const failure = await this.http.delete(this.options.closeTimeoutMs ?? 2_000);
    if (failure !== undefined) this.report(failure);
  }

  /** The answer to `id` can no longer arrive: the engine fails that request alone. */
  private lose(id: RequestId, cause: Error): void {
    if (this.closed) return;
    this.fail(cause);
    this.safely(() => this.onrequestlost?.(id, cause));
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
