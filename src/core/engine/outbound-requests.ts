/**
 * Outbound requests from send to settlement: ids, progress tokens, responses, abandonment.
 */
import { AuthorizationError, ConnectionClosedError, McpError, RequestAbortedError } from '../errors.js';
import type { JsonObject, JsonRpcRequest, JsonRpcResponse, RequestId } from '../jsonrpc.js';
import type { Transport } from '../transport.js';
import type { Logger } from './connection-types.js';
import { DeadlineTimer } from './deadline-timer.js';
import type { InflightRequest } from './inbound.js';
import { PendingRequest, validateTimeouts, type RequestOptions } from './outbound.js';
import { PendingTable, toProgress } from './pending-table.js';

/** What the outbound side needs from its connection. */
export interface OutboundHost {
  readonly transport: Transport;
  readonly logger: Logger;
  /** True until teardown begins. */
  readonly isOpen: boolean;
  /** `close()` was called on this side (not the peer's EOF, not a dead transport). */
  readonly closedLocally: boolean;
  closedError(): ConnectionClosedError;
  /** Cancel `entry` on the wire (routed with its parent) and abort what the peer sent for it. */
  cancelOnWire(entry: PendingRequest, error: Error): void;
}

export class OutboundRequests {
  // Not `implements PendingOwner`: the members that satisfy it are @internal, so in the published
  // .d.ts (stripInternal) the clause would fail to compile. Passing `this` where it is expected
  // checks the shape.
  /** Made on the first request with a deadline: most HTTP sessions never send one. */
  private deadlines: DeadlineTimer | undefined;
  private readonly pending = new PendingTable(this);

  constructor(
    private readonly host: OutboundHost,
    private readonly defaults: RequestOptions | undefined,
  ) {}

  get size(): number {
    return this.pending.size;
  }

  get(id: RequestId): PendingRequest | undefined {
    return this.pending.get(id);
  }

  send(
    method: string,
    params: JsonObject | undefined,
    options: RequestOptions | undefined,
    parent: InflightRequest | undefined,
  ): Promise<JsonObject> {
    const host = this.host;
    if (!host.isOpen) {
      return Promise.reject(
        host.closedLocally ? closedByClose(method, params, undefined) : host.closedError(),
      );
    }
    if (!host.transport.writable) {
      // Never offer a message to a dead transport: fail fast, with the transport's own error.
      return Promise.reject(
        new ConnectionClosedError('Connection closed: the transport cannot write', {
          cause: host.transport.lastError,
        }),
      );
    }
    if (options?.signal?.aborted) {
      return Promise.reject(new RequestAbortedError({ cause: options.signal.reason }));
    }
    if (parent?.aborted) return Promise.reject(new RequestAbortedError({ cause: parent.abortReason }));
    const merged = this.defaults ? { ...this.defaults, ...options } : options;
    // Most requests set no timeout of their own (a nested one only carries its parent's id).
    if (merged && (merged.timeoutMs !== undefined || merged.maxTotalTimeoutMs !== undefined)) {
      const invalid = validateTimeouts(merged);
      if (invalid) return Promise.reject(invalid);
    }
    const id = this.pending.allocateId();
    if (merged?.onRequestId) {
      try {
        merged.onRequestId(id);
      } catch (error) {
        return Promise.reject(error instanceof Error ? error : new Error(String(error)));
      }
    }
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
      const entry = new PendingRequest(id, method, params, this, resolve, reject, merged, parent);
      this.pending.add(entry);
      const related = merged?.relatedRequestId;
      const headers = merged?.headers;
      const sendOptions =
        related === undefined && headers === undefined ? undefined : { relatedRequestId: related, headers };
      const failed = (error: unknown): void => {
        this.pending.remove(entry);
        // A refused authorization is the request's own failure, not the connection's.
        entry.reject(
          error instanceof AuthorizationError
            ? error
            : new ConnectionClosedError('Could not send the request', { cause: error }),
        );
      };
      try {
        host.transport.send(message, sendOptions).then(undefined, failed);
      } catch (error) {
        failed(error);
      }
    });
  }

  /** @internal PendingOwner: give up on an outbound request (timeout or caller abort). */
  abandon(entry: PendingRequest, error: Error): void {
    if (entry.settled) return;
    this.pending.remove(entry);
    if (!this.host.isOpen) {
      // Teardown is under way: the true cause is the close, and nothing may be written.
      entry.reject(this.host.closedError());
      return;
    }
    entry.reject(error);
    this.host.cancelOnWire(entry, error);
  }

  onResponse(response: JsonRpcResponse): void {
    const id = response.id as RequestId;
    const entry = this.pending.take(id);
    if (!entry) {
      this.host.logger.debug(`ignored a response for unknown or abandoned request ${String(id)}`);
      return;
    }
    if ('result' in response) entry.resolve(response.result);
    else entry.reject(new McpError(response.error.code, response.error.message, response.error.data));
  }

  onProgress(params: JsonObject): void {
    const token = params.progressToken;
    if (typeof token !== 'string' && typeof token !== 'number') return;
    const entry = this.pending.get(token);
    const progress = entry && toProgress(params);
    if (!entry || !progress) return;
    try {
      entry.progress(progress);
    } catch (error) {
      this.host.logger.error('progress callback failed', error);
    }
  }

  /**
   * Reject every pending request, from a snapshot (rejecting wakes code that may call back). After
   * a local `close()` each gets its own error naming it, and no `cause` (nothing failed): a call
   * left unawaited then crashes with a message that says which one and why. Otherwise they share
   * the connection's error, whose `cause` is the transport's last error.
   */
  failAll(): void {
    if (this.pending.size === 0) return;
    if (this.host.closedLocally) {
      this.pending.failAll((entry) => closedByClose(entry.method, entry.params, entry.id));
    } else {
      const error = this.host.closedError();
      this.pending.failAll(() => error);
    }
  }

  /** @internal The pending table emptied: nothing to time out, and no timer may outlive the requests. */
  drained(): void {
    this.deadlines?.stop();
  }

  /** @internal PendingOwner: `entry` has a deadline at `due`. */
  deadline(due: number, now: number): void {
    if (due !== Infinity) (this.deadlines ??= new DeadlineTimer(this.expireDue)).ensure(due, now);
  }

  /** The deadline timer fired: time out what is due, and tell it the next deadline. */
  private readonly expireDue = (now: number): number => {
    let next = Infinity;
    const due: PendingRequest[] = [];
    for (const entry of this.pending.values()) {
      const at = entry.due;
      if (at <= now) due.push(entry);
      else if (at < next) next = at;
    }
    // Expired after the scan: expiring cancels on the wire and wakes callers, who may send more.
    // One that throws must not leave the others (or the next deadline) unwatched.
    for (const entry of due) {
      try {
        entry.expireIfDue(now);
      } catch (error) {
        this.host.logger.error('timing out an outbound request failed', error);
      }
    }
    return next;
  };
}

/**
 * The error of request `method` (`id`, once it had one) that a local `close()` ended: which
 * request (and which tool, prompt, ... when `params.name` says), and that this side closed.
 *
 * @example
 * closedByClose('tools/call', { name: 'slow' }, 3).message;
 * // 'tools/call "slow" (request 3) failed: the connection was closed locally by close() before its response arrived'
 */
export function closedByClose(
  method: string,
  params: JsonObject | undefined,
  id: RequestId | undefined,
): ConnectionClosedError {
  const name = typeof params?.name === 'string' ? ` ${JSON.stringify(params.name.slice(0, 100))}` : '';
  return new ConnectionClosedError(
    id === undefined
      ? `${method}${name} was not sent: the connection was closed locally by close()`
      : `${method}${name} (request ${JSON.stringify(id)}) failed: the connection was closed locally by close() before its response arrived`,
  );
}
