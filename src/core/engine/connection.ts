/**
 * The connection engine: reads the transport and owns the one ordered teardown. Runtime-neutral;
 * knows nothing of MCP methods beyond `notifications/cancelled` and `notifications/progress`.
 * Routing lives in `message-router.ts`, inbound requests in `inbound-requests.ts`, outbound ones
 * in `outbound-requests.ts`, writes in `wire-writer.ts`, the teardown's steps in
 * `shutdown-steps.ts`.
 */
import { ConnectionClosedError } from '../errors.js';
import type { JsonObject, JsonRpcNotification, RequestId } from '../jsonrpc.js';
import type { PollableIterator, Transport } from '../transport.js';
import type { ConnectionOptions, Logger, NotificationHandler, RequestHandler } from './connection-types.js';
import type { InflightRequest } from './inbound.js';
import { InboundRequests } from './inbound-requests.js';
import { MessageRouter } from './message-router.js';
import type { PendingRequest, RequestOptions } from './outbound.js';
import { OutboundRequests } from './outbound-requests.js';
import { abortAll, answerClosed, drainWindow } from './shutdown-steps.js';
import { WireWriter } from './wire-writer.js';

export type { ConnectionOptions, Logger, NotificationHandler, RequestHandler } from './connection-types.js';

const silent: Logger = { debug() {}, error() {} };
const noop = (): void => undefined;
const NONE: InflightRequest[] = [];
const NO_CALLBACKS: readonly (() => void)[] = [];

/** Default of {@link ConnectionOptions.maxInflight}. */
const DEFAULT_MAX_INFLIGHT = 1024;

/**
 * `draining`: the read side ended and accepted handlers get `drainMs` to finish; nothing new is
 * read or requested. `closing`: teardown under way; handlers are aborted and nothing they produce
 * is written any more (only the shutdown answers are).
 */
type State = 'idle' | 'open' | 'draining' | 'closing' | 'closed';

/**
 * One JSON-RPC connection over a {@link Transport}. Both servers and clients are built on it.
 *
 * A request whose id is still in flight is never run: it is refused with `{"id": null, "error":
 * {"code": -32600, "message": "Request id \"dup\" is already in flight", "data": {"requestId":
 * "dup"}}}` (id null, because an error with the same id would read as the first request's answer).
 *
 * @example
 * const connection = new Connection(transport);
 * connection.setRequestHandler('ping', () => ({}));
 * void connection.start();
 * const result = await connection.request('ping', {});
 * await connection.close();
 */
export class Connection {
  // Not `implements ContextHost, InboundHost, OutboundHost, RouterHost`: the members that satisfy
  // them are @internal, so in the published .d.ts (stripInternal) the clause would fail to
  // compile. Passing `this` where they are expected checks the shape.
  private readonly inbound: InboundRequests;
  private readonly queueWaitMs: number;
  /** The queue stayed full for `queueWaitMs`: reading on, refusing new requests while it is full. */
  private overloaded = false;
  private readonly outbound: OutboundRequests;
  private readonly router: MessageRouter;
  /**
   * The one callback as it is (a server session registers exactly one), an array from the second
   * on: no array per idle HTTP session.
   */
  private closeCallbacks: (() => void) | (() => void)[] | undefined;
  private iterator: AsyncIterator<unknown> | undefined;
  private state: State = 'idle';
  private localClose = false;
  private closeError: ConnectionClosedError | undefined;
  private readError: unknown;
  private drainWaiter: (() => void) | undefined;
  /**
   * `closed` and its resolver, made when first asked for: an idle HTTP session is never asked
   * (memory per session). `finished`: teardown is complete, so a late `closed` is settled.
   */
  private closedPromise: Promise<void> | undefined;
  private resolveClosed: (() => void) | undefined;
  private finished = false;
  /** @internal */
  readonly logger: Logger;
  /** @internal */
  readonly writer: WireWriter;

  constructor(
    readonly transport: Transport,
    private readonly options: ConnectionOptions = {},
  ) {
    // Every part of the engine logs through this: a logger that throws must not break a path
    // (an answer, a write failure, the read loop, teardown).
    this.logger = options.logger ? containedOnce(options.logger) : silent;
    this.writer = new WireWriter(transport, this.logger);
    const maxInflight = positive('maxInflight', options.maxInflight ?? DEFAULT_MAX_INFLIGHT);
    const maxQueued = positive('maxQueued', options.maxQueued ?? 4 * maxInflight);
    this.inbound = new InboundRequests(this, maxInflight, maxQueued);
    // setTimeout fires at once past 2^31-1 ms: longer waits are that long.
    this.queueWaitMs = Math.min(positive('queueWaitMs', options.queueWaitMs ?? 1_000), 2 ** 31 - 1);
    this.outbound = new OutboundRequests(this, options.requestDefaults);
    this.router = new MessageRouter(this, this.inbound, this.outbound);
  }

  /** Settles (never rejects) once teardown is complete. */
  get closed(): Promise<void> {
    if (!this.closedPromise) {
      if (this.finished) this.closedPromise = Promise.resolve();
      else this.closedPromise = new Promise((resolve) => (this.resolveClosed = resolve));
    }
    return this.closedPromise;
  }

  get sessionId(): string | undefined {
    return this.transport.sessionId;
  }

  /**
   * True once {@link close} was called while the connection was open: this side ended it (not
   * the peer's EOF, not a dead transport). Lets a long-lived request tell a caller's own close
   * from a loss.
   */
  get closedLocally(): boolean {
    return this.localClose;
  }

  /** True until teardown begins. */
  get isOpen(): boolean {
    return this.state === 'open' || this.state === 'idle';
  }

  /** @internal Handlers may start and answer (open, or draining after EOF). */
  get answering(): boolean {
    return this.state === 'open' || this.state === 'draining';
  }

  /** Inbound requests accepted and not yet answered, running or queued (for tests and metrics). */
  get inflightCount(): number {
    return this.inbound.size;
  }

  /** Inbound requests waiting for a handler slot (`maxInflight`). */
  get queuedCount(): number {
    return this.inbound.queuedCount;
  }

  /** Number of outbound requests awaiting a response. */
  get pendingCount(): number {
    return this.outbound.size;
  }

  /** Called for inbound requests with no registered handler; default: method not found. */
  get fallbackRequestHandler(): RequestHandler | undefined {
    return this.router.fallbackRequestHandler;
  }
  set fallbackRequestHandler(handler: RequestHandler | undefined) {
    this.router.fallbackRequestHandler = handler;
  }

  /** Called for inbound notifications with no registered handler; default: ignored. */
  get fallbackNotificationHandler(): NotificationHandler | undefined {
    return this.router.fallbackNotificationHandler;
  }
  set fallbackNotificationHandler(handler: NotificationHandler | undefined) {
    this.router.fallbackNotificationHandler = handler;
  }

  setRequestHandler(method: string, handler: RequestHandler): void {
    (this.router.handlers ??= new Map()).set(method, handler);
  }

  setNotificationHandler(method: string, handler: NotificationHandler): void {
    (this.router.notificationHandlers ??= new Map()).set(method, handler);
  }

  /** Run `callback` once, when teardown completes. Runs at once if already closed. */
  onClose(callback: () => void): void {
    if (this.state === 'closed') callback();
    else if (this.closeCallbacks === undefined) this.closeCallbacks = callback;
    else if (typeof this.closeCallbacks === 'function') this.closeCallbacks = [this.closeCallbacks, callback];
    else this.closeCallbacks.push(callback);
  }

  /** Start reading. Returns {@link closed}. Calling it twice is harmless. */
  start(): Promise<void> {
    this.begin();
    return this.closed;
  }

  /** @internal {@link start} without making {@link closed} (a server session may never need it). */
  begin(): void {
    if (this.state !== 'idle') return;
    this.state = 'open';
    this.transport.onrequestlost = this.onRequestLost;
    this.transport.oninboundlost = this.onInboundLost;
    this.iterator = this.transport[Symbol.asyncIterator]();
    this.pull();
  }

  /**
   * Close: stop reading, abort handlers, fail pending requests, close the transport. Idempotent.
   * Teardown starts synchronously, so a request made right after `close()` already fails.
   */
  close(): Promise<void> {
    if (this.state === 'idle' || this.state === 'open') {
      this.localClose = true;
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
   * local error (connection closed, timeout, abort; RangeError for a bad timeout option).
   */
  request(method: string, params?: JsonObject, options?: RequestOptions): Promise<JsonObject> {
    return this.outbound.send(method, params, options, undefined);
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
    return this.outbound.send(method, params, routed, parent);
  }

  /** Send a notification; dropped (debug log) when the connection is closed. */
  notify(method: string, params?: JsonObject, relatedRequestId?: RequestId): Promise<void> {
    if (this.state === 'closing' || this.state === 'closed') {
      this.logger.debug(`dropped notification ${method}: connection closed`);
      return Promise.resolve();
    }
    const message: JsonRpcNotification =
      params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params };
    return this.writer.write(message, relatedRequestId);
  }

  /** @internal ContextHost: a notification made by a handler. */
  sendRelated(entry: InflightRequest, method: string, params: JsonObject | undefined): Promise<void> {
    if (entry.cancelled || entry.ended) return Promise.resolve();
    return this.notify(method, params, entry.id);
  }

  /**
   * @internal OutboundHost: we gave up on `entry` while open. The spec forbids cancelling
   * initialize; everything else is cancelled on the wire, once. A nested request's cancel travels
   * with its parent (on HTTP: the parent's POST stream, which a client without a GET stream is
   * still reading). Requests the peer sent us for it (an elicitation the server made for our
   * tools/call) have nobody waiting for their answers any more: they are aborted, unanswered.
   */
  cancelOnWire(entry: PendingRequest, error: Error): void {
    if (entry.method !== 'initialize') {
      void this.notify(
        'notifications/cancelled',
        { requestId: entry.id, reason: error.message },
        entry.relatedRequestId,
      );
    }
    this.inbound.abortTaken(this.inbound.takeRelated(entry.id), error);
    if (this.inbound.size === 0) this.inboundIdle();
  }

  /** @internal InboundHost: no inbound request is left (an EOF drain may end). */
  inboundIdle(): void {
    this.drainWaiter?.();
  }

  /** @internal RouterHost: tell the `onInvalidMessage` option, if any (a throwing one is logged). */
  invalidMessage(item: unknown): void {
    const hook = this.options.onInvalidMessage;
    if (hook === undefined) return;
    try {
      hook(item);
    } catch (error) {
      this.report('error', 'onInvalidMessage failed', error);
    }
  }

  /** @internal */
  closedError(): ConnectionClosedError {
    return (this.closeError ??= new ConnectionClosedError('Connection closed', {
      cause: this.transport.lastError ?? this.readError,
    }));
  }

  /**
   * The read loop, written as callbacks rather than an `async` function: parked on an idle
   * transport it holds one pending `next()` and its reaction, not a suspended generator with its
   * registers, context and own promise (memory per idle HTTP session). Messages the transport
   * already holds (the other lines of a stdio chunk) are taken with `poll()`, without a promise
   * each. As before, each message is routed before the next is taken, and a read that throws or
   * rejects ends in the one teardown.
   */
  private pull(): void {
    const iterator = this.iterator!;
    let next: Promise<IteratorResult<unknown>>;
    try {
      if ((iterator as Partial<PollableIterator>).poll !== undefined) {
        let queued: IteratorResult<unknown> | undefined;
        while ((queued = (iterator as PollableIterator).poll()) !== undefined) {
          if (!this.took(queued)) return;
        }
      }
      next = iterator.next();
    } catch (error) {
      this.readFailed(error);
      return;
    }
    next.then(this.onRead, this.onReadFailed);
  }

  private readonly onRead = (next: IteratorResult<unknown>): void => {
    if (this.took(next)) this.pull();
  };

  /** Route what the read gave; true when the loop goes on reading now. */
  private took(next: IteratorResult<unknown>): boolean {
    try {
      if (next.done) {
        void this.teardown(true);
        return false;
      }
      this.receive(next.value);
      // Backpressure: past the queue bound, stop pulling until a queued request starts, but not
      // for ever: what is unread may be the cancel (or EOF) the running handlers wait for.
      if (this.inbound.full && this.state === 'open' && !this.overloaded) {
        void this.inbound.room(this.queueWaitMs).then((room) => {
          this.overloaded = !room;
          this.pull();
        });
        return false;
      }
      if (this.overloaded && !this.inbound.full) this.overloaded = false;
    } catch (error) {
      this.readFailed(error);
      return false;
    }
    return true;
  }

  private readonly onReadFailed = (error: unknown): void => this.readFailed(error);

  private readFailed(error: unknown): void {
    this.readError = error;
    this.report('debug', 'transport read failed', error);
    void this.teardown(true);
  }

  /** Make the read loop end (it then finds teardown already under way). */
  private stopReading(): void {
    try {
      this.iterator?.return?.().then(undefined, noop);
    } catch (error) {
      this.report('debug', 'stopping the read failed', error);
    }
  }

  private receive(value: unknown): void {
    // A message the iterator still yields after a local close is not processed.
    if (this.state !== 'open') return;
    try {
      this.router.route(value);
    } catch (error) {
      // One bad message (or a throwing hook, or logger) must not end the read loop.
      this.report('error', 'failed to handle an inbound message', error);
    }
  }

  // The transport lost the answer to one request while the connection lives on (an HTTP response
  // stream that ended and could not be resumed): fail that request alone, cancelled on the wire
  // like any abandoned request.
  private readonly onRequestLost = (id: RequestId, cause?: unknown): void => {
    const entry = this.outbound.get(id);
    if (entry)
      this.outbound.abandon(
        entry,
        new ConnectionClosedError('The response to this request was lost', { cause }),
      );
  };

  // The transport ended an inbound request's stream itself (it answered in its place): the
  // handler's work can no longer reach anyone, so stop it, and never answer it a second time.
  private readonly onInboundLost = (id: RequestId, cause?: unknown): void => {
    const entry = this.inbound.take(id);
    if (!entry) return;
    entry.answered = true;
    if (this.inbound.size === 0) this.inboundIdle();
    entry.abort(new ConnectionClosedError('The response stream of this request was lost', { cause }));
  };

  /**
   * Log without ever throwing: teardown and error paths must not fail on a faulty logger. A
   * method, not a bound arrow: one closure less per connection (memory per idle HTTP session).
   */
  private report(level: 'debug' | 'error', message: string, detail?: unknown): void {
    try {
      this.logger[level](message, detail);
    } catch {
      // Nowhere left to report to.
    }
  }

  /**
   * The one teardown, entered once (reading already stopped): (EOF drain) → abort handlers → fail
   * pending → answer → close the transport → callbacks. A local close skips the drain. Every step
   * is contained, so `closed` always settles and every callback runs once, whatever throws.
   */
  private async teardown(fromEof: boolean): Promise<void> {
    if (!this.isOpen) return;
    try {
      const drainMs = this.options.drainMs ?? 0;
      if (fromEof && drainMs > 0 && this.inbound.size > 0 && this.writableSafely()) {
        this.state = 'draining';
        // No response can arrive once the read side ended: waiting callers fail now, not at the end.
        this.failPending();
        await this.drain(drainMs);
      }
      this.state = 'closing';
      const inflight = this.abortHandlers();
      this.failPending();
      // Mostly nothing is left (a stateless HTTP exchange closes after its answer, every time):
      // no async step of its own then.
      if (inflight.length > 0) await this.answerUnanswered(inflight, fromEof);
      this.state = 'closed';
      this.writer.stopped = true;
      try {
        await this.transport.close();
      } catch (closeError) {
        this.report('debug', 'transport close failed', closeError);
      }
    } catch (error) {
      // Not expected (every step is contained); the finally below still completes the close.
      this.report('error', 'teardown failed', error);
    } finally {
      this.state = 'closed';
      this.writer.stopped = true;
      const registered = this.closeCallbacks;
      this.closeCallbacks = undefined;
      const callbacks =
        registered === undefined
          ? NO_CALLBACKS
          : typeof registered === 'function'
            ? [registered]
            : registered;
      for (const callback of callbacks) {
        try {
          callback();
        } catch (callbackError) {
          this.report('error', 'close callback failed', callbackError);
        }
      }
      this.finished = true;
      this.resolveClosed?.();
    }
  }

  /** Abort every accepted request, queued ones included (they never run); returns them. */
  private abortHandlers(): InflightRequest[] {
    // The close error (a stack trace) is built only when something is there to fail: a stateless
    // HTTP request closes a connection with nothing in flight, every time.
    if (this.inbound.size === 0) return NONE;
    return abortAll(this.inbound, this.closedError(), (level, message, detail) =>
      this.report(level, message, detail),
    );
  }

  /** Reject every pending outbound request, exactly once each. */
  private failPending(): void {
    try {
      this.outbound.failAll();
    } catch (error) {
      this.report('error', 'failing pending requests failed', error);
    }
  }

  /**
   * One `-32000` per unanswered request, when the policy says so. Default: answer on a local close
   * (the peer may still read), not after the peer's EOF (it is leaving, and an answer during its
   * teardown has crashed real clients). The transport knows best why it closed; then the option.
   */
  private async answerUnanswered(inflight: InflightRequest[], fromEof: boolean): Promise<void> {
    try {
      const answer = this.transport.answerOnClose ?? this.options.answerOnClose ?? !fromEof;
      if (answer) await answerClosed(inflight, this.writer, this.options.closeWriteTimeoutMs ?? 1_000);
    } catch (error) {
      this.report('error', 'writing the shutdown answers failed', error);
    }
  }

  private writableSafely(): boolean {
    try {
      return this.writer.open;
    } catch {
      return false;
    }
  }

  private drain(ms: number): Promise<void> {
    return drainWindow(ms, (done) => (this.drainWaiter = done));
  }
}

function positive(name: string, value: number): number {
  if (!(value >= 1)) throw new RangeError(`${name} must be at least 1, got ${String(value)}`);
  return value;
}

const contained = new WeakMap<Logger, Logger>();

/** One contained logger per user logger, shared by the connections that use it. */
function containedOnce(logger: Logger): Logger {
  let wrapped = contained.get(logger);
  if (!wrapped) {
    wrapped = containedLogger(logger);
    contained.set(logger, wrapped);
  }
  return wrapped;
}

/**
 * @internal A logger that cannot throw: a faulty one must not break the engine or whatever
 * delivery loop reports through it (e.g. the notification fan-out).
 */
export function containedLogger(logger: Logger): Logger {
  return {
    debug(message, detail) {
      try {
        logger.debug(message, detail);
      } catch {
        // Nowhere left to report to.
      }
    },
    error(message, detail) {
      try {
        logger.error(message, detail);
      } catch {
        // Nowhere left to report to.
      }
    },
  };
}
