/**
 * The connection engine: JSON-RPC correlation, concurrent dispatch, cancellation, progress,
 * timeouts, and the one ordered teardown. Runtime-neutral; knows nothing of MCP methods beyond
 * `notifications/cancelled` and `notifications/progress`.
 */
import {
  CancelledByPeerError,
  ConnectionClosedError,
  ErrorCode,
  McpError,
  RequestAbortedError,
  toWireError,
} from '../errors.js';
import {
  classifyMessage,
  errorResponse,
  isRequestId,
  type JsonObject,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
  type RequestId,
} from '../jsonrpc.js';
import { InboundFault, type MessageInfo, type Transport } from '../transport.js';
import { InflightRequest } from './inbound.js';
import { PendingRequest, type PendingOwner, type RequestOptions } from './outbound.js';
import type { ConnectionOptions, Logger, NotificationHandler, RequestHandler } from './connection-types.js';
import { InflightTable } from './inflight-table.js';
import { PendingTable, toProgress } from './pending-table.js';
import { RequestContext, type ContextHost } from './request-context.js';

export type { ConnectionOptions, Logger, NotificationHandler, RequestHandler } from './connection-types.js';

const EMPTY: JsonObject = Object.freeze({});
const silent: Logger = { debug() {}, error() {} };

/**
 * `draining`: the read side ended and accepted handlers get `drainMs` to finish; nothing new is
 * read or requested. `closing`: teardown under way; handlers are aborted and nothing they produce
 * is written any more (only the shutdown answers are).
 */
type State = 'idle' | 'open' | 'draining' | 'closing' | 'closed';

const noop = (): void => undefined;
const NONE: InflightRequest[] = [];

/**
 * One JSON-RPC connection over a {@link Transport}. Both servers and clients are built on it.
 *
 * @example
 * const connection = new Connection(transport);
 * connection.setRequestHandler('ping', () => ({}));
 * void connection.start();
 * const result = await connection.request('ping', {});
 * await connection.close();
 */
export class Connection implements PendingOwner, ContextHost {
  private readonly handlers = new Map<string, RequestHandler>();
  private readonly notificationHandlers = new Map<string, NotificationHandler>();
  private readonly inflight = new InflightTable();
  private readonly pending = new PendingTable();
  private readonly closeCallbacks: (() => void)[] = [];
  private iterator: AsyncIterator<unknown> | undefined;
  private state: State = 'idle';
  private closeError: ConnectionClosedError | undefined;
  private readError: unknown;
  private drainWaiter: (() => void) | undefined;
  /** The last promise a fire-and-forget write got from the transport (see `post`). */
  private lastSent: Promise<void> | undefined;
  private readonly logger: Logger;
  private resolveClosed!: () => void;
  /** Settles (never rejects) once teardown is complete. */
  readonly closed: Promise<void>;
  /** Called for inbound requests with no registered handler; default: method not found. */
  fallbackRequestHandler: RequestHandler | undefined;
  /** Called for inbound notifications with no registered handler; default: ignored. */
  fallbackNotificationHandler: NotificationHandler | undefined;

  constructor(
    readonly transport: Transport,
    private readonly options: ConnectionOptions = {},
  ) {
    this.logger = options.logger ?? silent;
    this.closed = new Promise((resolve) => {
      this.resolveClosed = resolve;
    });
  }

  get sessionId(): string | undefined {
    return this.transport.sessionId;
  }

  /** True until teardown begins. */
  get isOpen(): boolean {
    return this.state === 'open' || this.state === 'idle';
  }

  /** Number of inbound requests being handled (for tests and metrics). */
  get inflightCount(): number {
    return this.inflight.size;
  }

  /** Number of outbound requests awaiting a response. */
  get pendingCount(): number {
    return this.pending.size;
  }

  setRequestHandler(method: string, handler: RequestHandler): void {
    this.handlers.set(method, handler);
  }

  setNotificationHandler(method: string, handler: NotificationHandler): void {
    this.notificationHandlers.set(method, handler);
  }

  /** Run `callback` once, when teardown completes. Runs at once if already closed. */
  onClose(callback: () => void): void {
    if (this.state === 'closed') callback();
    else this.closeCallbacks.push(callback);
  }

  /** Start reading. Returns {@link closed}. Calling it twice is harmless. */
  start(): Promise<void> {
    if (this.state !== 'idle') return this.closed;
    this.state = 'open';
    this.transport.onrequestlost = this.onRequestLost;
    this.iterator = this.transport[Symbol.asyncIterator]();
    void this.readLoop(this.iterator);
    return this.closed;
  }

  /**
   * Close: stop reading, abort handlers, fail pending requests, close the transport. Idempotent.
   * Teardown starts synchronously, so a request made right after `close()` already fails.
   */
  close(): Promise<void> {
    if (this.state === 'idle' || this.state === 'open') {
      this.stopReading();
      void this.teardown(false);
    } else if (this.state === 'draining') {
      // A local close cuts an EOF drain short.
      this.drainWaiter?.();
    }
    return this.closed;
  }

  /**
   * Send a request and await its result. Rejects with {@link McpError} for a peer error, or a
   * local error (connection closed, timeout, abort).
   */
  request(method: string, params?: JsonObject, options?: RequestOptions): Promise<JsonObject> {
    return this.sendRequest(method, params, options, undefined);
  }

  /**
   * @internal ContextHost: a request made by the handler of `parent`, routed with it and aborted
   * with it (without an AbortSignal per request: the parent tells its nested requests itself).
   */
  requestFor(
    parent: InflightRequest,
    method: string,
    params: JsonObject | undefined,
    options: RequestOptions | undefined,
  ): Promise<JsonObject> {
    const routed: RequestOptions = options
      ? { ...options, relatedRequestId: parent.id }
      : { relatedRequestId: parent.id };
    return this.sendRequest(method, params, routed, parent);
  }

  private sendRequest(
    method: string,
    params: JsonObject | undefined,
    options: RequestOptions | undefined,
    parent: InflightRequest | undefined,
  ): Promise<JsonObject> {
    if (!this.isOpen) return Promise.reject(this.closedError());
    if (!this.transport.writable) {
      // Never offer a message to a dead transport: fail fast, with the transport's own error.
      return Promise.reject(
        new ConnectionClosedError('Connection closed: the transport cannot write', {
          cause: this.transport.lastError,
        }),
      );
    }
    if (options?.signal?.aborted) {
      return Promise.reject(new RequestAbortedError({ cause: options.signal.reason }));
    }
    if (parent?.aborted) return Promise.reject(new RequestAbortedError({ cause: parent.abortReason }));
    const id = this.pending.allocateId();
    const merged = this.options.requestDefaults ? { ...this.options.requestDefaults, ...options } : options;
    let message: JsonRpcRequest;
    if (merged?.onprogress) {
      const withToken: JsonObject = {
        ...params,
        _meta: { ...(params?._meta as JsonObject), progressToken: id },
      };
      message = { jsonrpc: '2.0', id, method, params: withToken };
    } else {
      message =
        params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
    }
    return new Promise<JsonObject>((resolve, reject) => {
      const entry = new PendingRequest(id, method, this, resolve, reject, merged, parent);
      this.pending.add(entry);
      const related = merged?.relatedRequestId;
      const failed = (error: unknown): void => {
        this.pending.remove(entry);
        entry.reject(new ConnectionClosedError('Could not send the request', { cause: error }));
      };
      try {
        this.transport
          .send(message, related === undefined ? undefined : { relatedRequestId: related })
          .then(undefined, failed);
      } catch (error) {
        failed(error);
      }
    });
  }

  /** Send a notification; dropped (debug log) when the connection is closed. */
  notify(method: string, params?: JsonObject, relatedRequestId?: RequestId): Promise<void> {
    if (this.state === 'closing' || this.state === 'closed') {
      this.logger.debug(`dropped notification ${method}: connection closed`);
      return Promise.resolve();
    }
    const message: JsonRpcNotification =
      params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params };
    return this.write(message, relatedRequestId);
  }

  /** @internal ContextHost: a notification made by a handler. */
  sendRelated(entry: InflightRequest, method: string, params: JsonObject | undefined): Promise<void> {
    if (entry.cancelled || entry.ended) return Promise.resolve();
    return this.notify(method, params, entry.id);
  }

  /** @internal PendingOwner: give up on an outbound request (timeout or caller abort). */
  abandon(entry: PendingRequest, error: Error): void {
    if (entry.settled) return;
    this.pending.remove(entry);
    if (!this.isOpen) {
      // Teardown is under way: the true cause is the close, and nothing may be written.
      entry.reject(this.closedError());
      return;
    }
    entry.reject(error);
    // The spec forbids cancelling initialize; everything else is cancelled on the wire, once. A
    // nested request's cancel travels with its parent (on HTTP: the parent's POST stream, which a
    // client without a GET stream is still reading).
    if (entry.method !== 'initialize') {
      void this.notify(
        'notifications/cancelled',
        { requestId: entry.id, reason: error.message },
        entry.parent?.id,
      );
    }
    this.abortRelated(entry.id, error);
  }

  /**
   * Requests the peer sent us for an outbound request we just gave up on (an elicitation the server
   * made for our tools/call): nobody waits for their answers any more, so abort them, unanswered.
   */
  private abortRelated(outboundId: RequestId, error: Error): void {
    for (const inbound of this.inflight.takeRelated(outboundId)) {
      inbound.cancelled = true;
      inbound.abort(new RequestAbortedError({ cause: error }));
    }
    if (this.inflightCount === 0 && this.drainWaiter) this.drainWaiter();
  }

  private async readLoop(iterator: AsyncIterator<unknown>): Promise<void> {
    try {
      for (;;) {
        const next = await iterator.next();
        if (next.done) break;
        this.receive(next.value);
      }
    } catch (error) {
      this.readError = error;
      this.logger.debug('transport read failed', error);
    }
    await this.teardown(true);
  }

  /** Make the read loop end (it then finds teardown already under way). */
  private stopReading(): void {
    try {
      this.iterator?.return?.().then(undefined, noop);
    } catch (error) {
      this.logger.debug('stopping the read failed', error);
    }
  }

  private receive(value: unknown): void {
    // A message the iterator still yields after a local close is not processed.
    if (this.state !== 'open') return;
    try {
      this.dispatch(value);
    } catch (error) {
      // One bad message (or a throwing hook) must not end the read loop.
      this.logger.error('failed to handle an inbound message', error);
    }
  }

  private dispatch(value: unknown): void {
    if (value instanceof InboundFault) {
      this.post(value.reply);
      return;
    }
    const classified = classifyMessage(value);
    switch (classified.kind) {
      case 'request':
        this.onRequest(classified.message);
        return;
      case 'notification':
        this.onNotification(classified.message);
        return;
      case 'response':
        this.onResponse(classified.message);
        return;
      default:
        if (classified.reply) this.post(classified.reply);
        else this.logger.debug('dropped an invalid message', value);
    }
  }

  private onRequest(request: JsonRpcRequest): void {
    if (this.state !== 'open') return;
    const handler = this.handlers.get(request.method) ?? this.fallbackRequestHandler;
    if (!handler) {
      this.post(
        errorResponse(request.id, ErrorCode.MethodNotFound, `Method not found: ${request.method}`),
        request.id,
      );
      return;
    }
    let info: MessageInfo | undefined;
    try {
      info = this.transport.messageInfo?.(request);
    } catch (error) {
      // Without its transport facts (auth!) the request cannot be handled safely: answer it alone.
      this.logger.error(`transport messageInfo failed for ${request.method}`, error);
      this.post(errorResponse(request.id, ErrorCode.InternalError, 'Internal error'), request.id);
      return;
    }
    const params = request.params ?? EMPTY;
    const meta = params._meta as JsonObject | undefined;
    const token = meta?.progressToken;
    const entry = new InflightRequest(
      request.id,
      request.method,
      typeof token === 'string' || typeof token === 'number' ? token : undefined,
      info?.relatedRequestId,
    );
    this.inflight.add(entry);
    const ctx = new RequestContext(this, entry, meta, info);
    let result: JsonObject | Promise<JsonObject>;
    try {
      result = handler(params, ctx);
    } catch (error) {
      this.finish(entry, undefined, error);
      return;
    }
    if (result instanceof Promise) {
      result.then(
        (value) => this.finish(entry, value, undefined),
        (error: unknown) => this.finish(entry, undefined, error ?? new Error('Handler rejected')),
      );
    } else {
      this.finish(entry, result, undefined);
    }
  }

  private finish(entry: InflightRequest, result: JsonObject | undefined, error: unknown): void {
    entry.ended = true;
    this.inflight.remove(entry);
    if (this.inflightCount === 0 && this.drainWaiter) this.drainWaiter();
    // Once teardown began, only its shutdown answers are written (answerOnClose decides).
    if (entry.answered || entry.cancelled || this.state === 'closing' || this.state === 'closed') {
      if (error !== undefined)
        this.logger.debug(`handler for ${entry.method} failed after its request ended`, error);
      return;
    }
    entry.answered = true;
    const message: JsonRpcResponse =
      error === undefined
        ? { jsonrpc: '2.0', id: entry.id, result: result ?? EMPTY }
        : { jsonrpc: '2.0', id: entry.id, error: toWireError(error) };
    this.post(message, entry.id);
  }

  private onNotification(notification: JsonRpcNotification): void {
    const params = notification.params ?? EMPTY;
    if (notification.method === 'notifications/cancelled') return this.onCancelled(params);
    if (notification.method === 'notifications/progress') return this.onProgress(params);
    const handler = this.notificationHandlers.get(notification.method) ?? this.fallbackNotificationHandler;
    if (!handler) return;
    try {
      const done = handler(params, this.transport.messageInfo?.(notification), notification.method);
      if (done instanceof Promise) {
        done.catch((error: unknown) =>
          this.logger.error(`notification handler ${notification.method} failed`, error),
        );
      }
    } catch (error) {
      this.logger.error(`notification handler ${notification.method} failed`, error);
    }
  }

  private onCancelled(params: JsonObject): void {
    const id = params.requestId;
    if (!isRequestId(id)) return;
    // initialize is never cancelled (spec), so it is never taken out of the table here.
    if (this.inflight.peek(id)?.method === 'initialize') return;
    const entry = this.inflight.take(id);
    if (!entry) return;
    entry.cancelled = true;
    if (this.inflightCount === 0 && this.drainWaiter) this.drainWaiter();
    entry.abort(new CancelledByPeerError(typeof params.reason === 'string' ? params.reason : undefined));
    // Only now, after the abort wrote its nested cancels, may the transport end the request's stream.
    try {
      this.transport.requestCancelled?.(id);
    } catch (error) {
      this.logger.error('transport requestCancelled failed', error);
    }
  }

  private onProgress(params: JsonObject): void {
    const token = params.progressToken;
    if (!isRequestId(token)) return;
    const entry = this.pending.get(token);
    const progress = entry && toProgress(params);
    if (!entry || !progress) return;
    try {
      entry.progress(progress);
    } catch (error) {
      this.logger.error('progress callback failed', error);
    }
  }

  private onResponse(response: JsonRpcResponse): void {
    const id = response.id as RequestId;
    const entry = this.pending.take(id);
    if (!entry) {
      this.logger.debug(`ignored a response for unknown or abandoned request ${String(id)}`);
      return;
    }
    if ('result' in response) entry.resolve(response.result);
    else entry.reject(new McpError(response.error.code, response.error.message, response.error.data));
  }

  /**
   * Write without handing a promise back (answers, fault replies). Transports that batch return
   * one promise for every message of a batch; its failure needs handling once, not per message.
   */
  private post(message: JsonRpcMessage, relatedRequestId?: RequestId): void {
    if (this.state === 'closed' || !this.transport.writable) {
      this.logger.debug('dropped a write: transport closed', message);
      return;
    }
    try {
      const sent = this.transport.send(
        message,
        relatedRequestId === undefined ? undefined : { relatedRequestId },
      );
      if (sent !== this.lastSent) {
        this.lastSent = sent;
        sent.then(undefined, this.onWriteFailed);
      }
    } catch (error) {
      // A transport that throws instead of rejecting must not crash whoever wrote.
      this.onWriteFailed(error);
    }
  }

  private write(message: JsonRpcMessage, relatedRequestId?: RequestId): Promise<void> {
    if (this.state === 'closed' || !this.transport.writable) {
      this.logger.debug('dropped a write: transport closed', message);
      return Promise.resolve();
    }
    try {
      return this.transport
        .send(message, relatedRequestId === undefined ? undefined : { relatedRequestId })
        .then(undefined, this.onWriteFailed);
    } catch (error) {
      // A transport that throws instead of rejecting must not crash whoever wrote.
      this.onWriteFailed(error);
      return Promise.resolve();
    }
  }

  // The transport lost the answer to one request while the connection lives on (an HTTP response
  // stream that ended and could not be resumed): fail that request alone, cancelled on the wire
  // like any abandoned request.
  private readonly onRequestLost = (id: RequestId, cause?: unknown): void => {
    const entry = this.pending.get(id);
    if (entry)
      this.abandon(entry, new ConnectionClosedError('The response to this request was lost', { cause }));
  };

  // A bound arrow, allocated once per connection rather than once per write.
  private readonly onWriteFailed = (error: unknown): void => {
    this.logger.debug('dropped a write: transport failed', error);
  };

  private closedError(): ConnectionClosedError {
    return (this.closeError ??= new ConnectionClosedError('Connection closed', {
      cause: this.transport.lastError ?? this.readError,
    }));
  }

  /**
   * The one teardown, entered once (reading already stopped). Ordered: (EOF drain) → abort
   * handlers → fail pending → answer → close the transport → callbacks. A local close skips the
   * drain.
   */
  private async teardown(fromEof: boolean): Promise<void> {
    if (!this.isOpen) return;
    const drainMs = this.options.drainMs ?? 0;
    if (fromEof && drainMs > 0 && this.inflightCount > 0 && this.transport.writable) {
      this.state = 'draining';
      // No response can arrive once the read side ended: waiting callers fail now, not at the end.
      this.failPending();
      await this.drain(drainMs);
    }
    this.state = 'closing';
    // The close error (a stack trace) is built only when something is there to fail: a stateless
    // HTTP request closes a connection with nothing in flight, every time.
    let inflight: InflightRequest[] = NONE;
    if (this.inflight.size > 0) {
      inflight = this.inflight.takeAll();
      const error = this.closedError();
      for (const entry of inflight) entry.abort(error);
    }

    this.failPending();

    // Default: answer on a local close (the peer may still read), not after the peer's EOF (it is
    // leaving, and an answer during its teardown has crashed real clients). The transport knows
    // best why it closed; then the connection's option.
    const answer = this.transport.answerOnClose ?? this.options.answerOnClose ?? true;
    if (inflight.length > 0 && answer && this.transport.writable) {
      const writes: Promise<void>[] = [];
      const answeredIds = new Set<RequestId>();
      for (const entry of inflight) {
        if (entry.answered || entry.cancelled) continue;
        entry.answered = true;
        // A peer that reused an in-flight id still gets at most one answer for it.
        if (answeredIds.has(entry.id)) continue;
        answeredIds.add(entry.id);
        writes.push(
          this.write(errorResponse(entry.id, ErrorCode.ConnectionClosed, 'Connection closed'), entry.id),
        );
      }
      if (writes.length > 0) await bounded(Promise.all(writes), this.options.closeWriteTimeoutMs ?? 1_000);
    }

    this.state = 'closed';
    try {
      await this.transport.close();
    } catch (closeError) {
      this.logger.debug('transport close failed', closeError);
    }
    const callbacks = this.closeCallbacks.splice(0);
    for (const callback of callbacks) {
      try {
        callback();
      } catch (callbackError) {
        this.logger.error('close callback failed', callbackError);
      }
    }
    this.resolveClosed();
  }

  /** Reject every pending outbound request, from a snapshot (rejecting wakes code that may call back). */
  private failPending(): void {
    if (this.pending.size > 0) this.pending.failAll(this.closedError());
  }

  private drain(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.drainWaiter = done;
    }).finally(() => {
      this.drainWaiter = undefined;
    });
  }
}

function bounded(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const limit = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  return Promise.race([work.then(() => undefined), limit]).finally(() => clearTimeout(timer));
}
