/**
 * Routes each inbound message: requests to their handler (through the inbound side), responses
 * and progress to the outbound side, cancels to the request they target, other notifications to
 * their handler. Every failure stays with its message.
 */
import { CancelledByPeerError, ErrorCode } from '../errors.js';
import {
  classifyMessage,
  errorResponse,
  isRequestId,
  type JsonObject,
  type JsonRpcNotification,
  type JsonRpcRequest,
} from '../jsonrpc.js';
import { InboundFault, type MessageInfo, type Transport } from '../transport.js';
import type { Logger, NotificationHandler, RequestHandler } from './connection-types.js';
import type { InboundRequests } from './inbound-requests.js';
import type { OutboundRequests } from './outbound-requests.js';
import { isThenable } from './thenable.js';
import type { WireWriter } from './wire-writer.js';

const EMPTY: JsonObject = Object.freeze({});

/** What the router needs from its connection. */
export interface RouterHost {
  readonly transport: Transport;
  readonly writer: WireWriter;
  readonly logger: Logger;
  /** No inbound request is left (an EOF drain may end). */
  inboundIdle(): void;
  /** `item` was no usable JSON-RPC message (already answered or dropped). */
  invalidMessage(item: unknown): void;
}

export class MessageRouter {
  /** Per-connection handlers, allocated on the first (a server session routes by its fallbacks). */
  handlers: Map<string, RequestHandler> | undefined;
  notificationHandlers: Map<string, NotificationHandler> | undefined;
  fallbackRequestHandler: RequestHandler | undefined;
  fallbackNotificationHandler: NotificationHandler | undefined;

  constructor(
    private readonly host: RouterHost,
    private readonly inbound: InboundRequests,
    private readonly outbound: OutboundRequests,
  ) {}

  route(value: unknown): void {
    if (value instanceof InboundFault) {
      this.host.writer.post(value.reply);
      this.host.invalidMessage(value);
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
        this.outbound.onResponse(classified.message);
        return;
      default:
        if (classified.reply) this.host.writer.post(classified.reply);
        else this.host.logger.debug('dropped an invalid message', value);
        this.host.invalidMessage(value);
    }
  }

  private onRequest(request: JsonRpcRequest): void {
    // First: any answer written with a duplicate's id would read as the first request's answer.
    if (this.inbound.refuseDuplicate(request.id)) return;
    const handler = this.handlers?.get(request.method) ?? this.fallbackRequestHandler;
    if (!handler) {
      this.host.writer.post(
        errorResponse(request.id, ErrorCode.MethodNotFound, `Method not found: ${request.method}`),
        request.id,
      );
      return;
    }
    let info: MessageInfo | undefined;
    try {
      info = this.host.transport.messageInfo?.(request);
    } catch (error) {
      // Without its transport facts (auth!) the request cannot be handled safely: answer it alone.
      this.host.logger.error(`transport messageInfo failed for ${request.method}`, error);
      this.host.writer.post(errorResponse(request.id, ErrorCode.InternalError, 'Internal error'), request.id);
      return;
    }
    // Sent for one of our requests that we already gave up on (the abandon came while this one
    // was still in the read queue): nobody waits for its answer, and the server side is gone.
    const related = info?.relatedRequestId;
    if (related !== undefined && !this.outbound.get(related)) {
      this.host.logger.debug(`dropped ${request.method}: the request it belongs to is over`);
      return;
    }
    this.inbound.accept(request, handler, info);
  }

  private onNotification(notification: JsonRpcNotification): void {
    const params = notification.params ?? EMPTY;
    if (notification.method === 'notifications/cancelled' && this.onCancelled(params)) return;
    if (notification.method === 'notifications/progress') return this.outbound.onProgress(params);
    const handler = this.notificationHandlers?.get(notification.method) ?? this.fallbackNotificationHandler;
    if (!handler) return;
    try {
      const done = handler(params, this.host.transport.messageInfo?.(notification), notification.method);
      if (isThenable(done)) {
        Promise.resolve(done).then(undefined, (error: unknown) =>
          // The connection's logger never throws (see containedLogger).
          this.host.logger.error(`notification handler ${notification.method} failed`, error),
        );
      }
    } catch (error) {
      this.host.logger.error(`notification handler ${notification.method} failed`, error);
    }
  }

  /**
   * A peer's cancel. Returns false only for one that names no request the peer made of us but one
   * of OUR requests still waiting for its answer: that one goes on to the notification handlers,
   * since a 2026-07-28 server on stdio ends one of our requests this way (the teardown of a
   * `subscriptions/listen`). Any other cancel naming nothing live (a late one, for a request
   * already answered) is dropped here: user handlers never see stale cancels.
   */
  private onCancelled(params: JsonObject): boolean {
    const id = params.requestId;
    if (!isRequestId(id)) return true;
    // initialize is never cancelled (spec), so it is never taken out of the table here.
    if (this.inbound.peek(id)?.method === 'initialize') return true;
    const entry = this.inbound.take(id);
    if (!entry) return this.outbound.get(id) === undefined;
    entry.cancelled = true;
    if (this.inbound.size === 0) this.host.inboundIdle();
    entry.abort(new CancelledByPeerError(typeof params.reason === 'string' ? params.reason : undefined));
    // Only now, after the abort wrote its nested cancels, may the transport end the request's stream.
    try {
      this.host.transport.requestCancelled?.(id);
    } catch (error) {
      this.host.logger.error('transport requestCancelled failed', error);
    }
    return true;
  }
}
