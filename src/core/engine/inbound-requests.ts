/**
 * Inbound requests from acceptance to answer: duplicate ids refused, handlers run up to
 * `maxInflight` at a time, the rest queued in arrival order, answers written once.
 */
import { ErrorCode, RequestAbortedError, toWireError } from '../errors.js';
import {
  errorResponse,
  type JsonObject,
  type JsonRpcRequest,
  type JsonRpcResponse,
  type RequestId,
} from '../jsonrpc.js';
import type { MessageInfo } from '../transport.js';
import type { Logger, RequestHandler } from './connection-types.js';
import { InflightRequest } from './inbound.js';
import { InflightTable } from './inflight-table.js';
import { RequestContext, type ContextHost } from './request-context.js';
import { isThenable } from './thenable.js';
import type { WireWriter } from './wire-writer.js';

const EMPTY: JsonObject = Object.freeze({});

/** What the inbound side needs from its connection. */
export interface InboundHost extends ContextHost {
  readonly writer: WireWriter;
  readonly logger: Logger;
  /** Handlers may still start and answers be written (open, or draining after EOF). */
  readonly answering: boolean;
  /** The table just became empty (ends an EOF drain early). */
  inboundIdle(): void;
}

/** A request accepted past the `maxInflight` cap: everything needed to start it later. */
interface Queued {
  entry: InflightRequest;
  handler: RequestHandler;
  params: JsonObject;
  meta: JsonObject | undefined;
  info: MessageInfo | undefined;
}

/**
 * Keeps the hot path a counter comparison: the queue is touched only past the cap.
 */
export class InboundRequests {
  private readonly table = new InflightTable();
  private readonly queue: (Queued | undefined)[] = [];
  private head = 0;
  /** Queued entries not cancelled meanwhile (cancelled ones stay in `queue` until popped). */
  private waiting = 0;
  private running = 0;
  private starting = false;
  private roomWaiter: (() => void) | undefined;

  constructor(
    private readonly host: InboundHost,
    private readonly maxInflight: number,
    private readonly maxQueued: number,
  ) {}

  /** Accepted and unanswered requests, running or queued. */
  get size(): number {
    return this.table.size;
  }

  /** Requests waiting for a handler slot. */
  get queuedCount(): number {
    return this.waiting;
  }

  /** The queue is at its bound: the read loop stops pulling until {@link room} resolves. */
  get full(): boolean {
    return this.waiting >= this.maxQueued;
  }

  /**
   * Resolves true once the queue is below its bound again (or teardown emptied it), false when
   * `ms` passed first: the read loop then reads on (see `queueWaitMs`).
   */
  room(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.roomWaiter = undefined;
        resolve(false);
      }, ms);
      this.roomWaiter = () => {
        clearTimeout(timer);
        resolve(true);
      };
    });
  }

  peek(id: RequestId): InflightRequest | undefined {
    return this.table.peek(id);
  }

  /**
   * Refuse a request whose id is still in flight (guarantee 4): it never runs, and it is answered
   * with id null, since an error carrying its id would read as the first request's answer.
   */
  refuseDuplicate(id: RequestId): boolean {
    if (!this.table.has(id)) return false;
    this.host.writer.post(
      errorResponse(null, ErrorCode.InvalidRequest, `Request id ${JSON.stringify(id)} is already in flight`, {
        requestId: id,
      }),
    );
    return true;
  }

  /** Run the request now, or queue it when `maxInflight` handlers are running. */
  accept(request: JsonRpcRequest, handler: RequestHandler, info: MessageInfo | undefined): void {
    const id = request.id;
    const params = request.params ?? EMPTY;
    const meta = params._meta as JsonObject | undefined;
    const token = meta?.progressToken;
    const entry = new InflightRequest(
      id,
      request.method,
      typeof token === 'string' || typeof token === 'number' ? token : undefined,
      info?.relatedRequestId,
    );
    if (this.running >= this.maxInflight && this.waiting >= this.maxQueued) {
      // Reached only once the read loop stopped waiting for room (`queueWaitMs`): nothing moves,
      // so refuse at once, with the request's own id (it never runs: no other answer follows).
      this.host.writer.post(
        errorResponse(id, ErrorCode.ServerBusy, 'Server busy: too many requests in flight; retry later'),
        id,
      );
      return;
    }
    this.table.add(entry);
    if (this.running < this.maxInflight) {
      this.run(entry, handler, params, meta, info);
      return;
    }
    entry.queued = true;
    this.waiting++;
    this.queue.push({ entry, handler, params, meta, info });
  }

  /** Take the entry a peer cancel targets; a queued one never runs. */
  take(id: RequestId): InflightRequest | undefined {
    const entry = this.table.take(id);
    if (entry) this.dropped(entry);
    return entry;
  }

  /** Take every entry the peer sent for our outbound request `outboundId`. */
  takeRelated(outboundId: RequestId): InflightRequest[] {
    const found = this.table.takeRelated(outboundId);
    for (const entry of found) this.dropped(entry);
    return found;
  }

  /** Teardown: empty the table and the queue; queued entries never run. Returns the snapshot. */
  takeAll(): InflightRequest[] {
    const all = this.table.size > 0 ? this.table.takeAll() : [];
    if (this.queue.length > 0) {
      this.queue.length = 0;
      this.head = 0;
    }
    this.waiting = 0;
    this.releaseRoom();
    return all;
  }

  /** Abort entries taken out of the table for a reason other than teardown (no answer follows). */
  abortTaken(entries: InflightRequest[], error: unknown): void {
    for (const entry of entries) {
      entry.cancelled = true;
      entry.abort(new RequestAbortedError({ cause: error }));
    }
  }

  private dropped(entry: InflightRequest): void {
    if (!entry.queued) return;
    entry.queued = false;
    this.waiting--;
    // Cancelled entries stay in the array until popped; while slots are stuck, request+cancel
    // pairs would grow it without bound: compact once they outnumber the live ones.
    const slots = this.queue.length - this.head;
    if (slots > 64 && slots > 2 * this.waiting) this.compact();
    if (this.waiting < this.maxQueued) this.releaseRoom();
  }

  private compact(): void {
    const live: Queued[] = [];
    for (let i = this.head; i < this.queue.length; i++) {
      const item = this.queue[i];
      if (item?.entry.queued) live.push(item);
    }
    this.queue.length = 0;
    this.queue.push(...live);
    this.head = 0;
  }

  /** Queue slots held (live and cancelled), for tests. */
  get queueSlots(): number {
    return this.queue.length - this.head;
  }

  private releaseRoom(): void {
    const waiter = this.roomWaiter;
    if (!waiter) return;
    this.roomWaiter = undefined;
    waiter();
  }

  private run(
    entry: InflightRequest,
    handler: RequestHandler,
    params: JsonObject,
    meta: JsonObject | undefined,
    info: MessageInfo | undefined,
  ): void {
    this.running++;
    const ctx = new RequestContext(this.host, entry, meta, info);
    let result: unknown;
    try {
      result = handler(params, ctx);
      if (isThenable(result)) {
        // Promise.resolve adopts any thenable; for a native promise it is that promise itself.
        Promise.resolve(result).then(
          (value) => this.finish(entry, value as JsonObject, undefined),
          (error: unknown) => this.finish(entry, undefined, error ?? new Error('Handler rejected')),
        );
        return;
      }
    } catch (error) {
      this.finish(entry, undefined, error);
      return;
    }
    this.finish(entry, result as JsonObject, undefined);
  }

  private finish(entry: InflightRequest, result: JsonObject | undefined, error: unknown): void {
    this.running--;
    entry.ended = true;
    this.table.remove(entry);
    if (entry.answered || entry.cancelled || !this.host.answering) {
      // Once teardown began, only its shutdown answers are written (answerOnClose decides).
      if (error !== undefined)
        this.host.logger.debug(`handler for ${entry.method} failed after its request ended`, error);
    } else {
      entry.answered = true;
      const message: JsonRpcResponse =
        error === undefined
          ? { jsonrpc: '2.0', id: entry.id, result: result ?? EMPTY }
          : { jsonrpc: '2.0', id: entry.id, error: toWireError(error) };
      this.host.writer.post(message, entry.id);
    }
    if (this.waiting > 0) this.startQueued();
    if (this.table.size === 0) this.host.inboundIdle();
  }

  /** Start queued requests while slots are free. Not re-entrant: a handler that ends at once
   * would otherwise recurse once per queued request. */
  private startQueued(): void {
    if (this.starting || !this.host.answering) return;
    this.starting = true;
    try {
      while (this.running < this.maxInflight && this.head < this.queue.length) {
        const next = this.queue[this.head]!;
        this.queue[this.head++] = undefined;
        if (!next.entry.queued) continue; // cancelled while it waited
        next.entry.queued = false;
        this.waiting--;
        this.run(next.entry, next.handler, next.params, next.meta, next.info);
      }
      if (this.head === this.queue.length) {
        this.queue.length = 0;
        this.head = 0;
      }
    } finally {
      this.starting = false;
    }
    if (this.waiting < this.maxQueued) this.releaseRoom();
  }
}
