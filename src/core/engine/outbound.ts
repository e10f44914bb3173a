/**
 * The pending table's entries: one outbound request awaiting its response.
 */
import { RequestAbortedError, RequestTimeoutError } from '../errors.js';
import type { JsonObject, RequestId } from '../jsonrpc.js';
import type { InflightRequest } from './inbound.js';

/**
 * A `notifications/progress` payload as delivered to a caller's `onprogress`.
 *
 * @example
 * const onprogress = ({ progress, total, message }: Progress) => console.error(`${progress}/${total ?? '?'} ${message ?? ''}`);
 * await client.callTool('render', {}, { onprogress });
 */
export interface Progress {
  progress: number;
  total?: number;
  message?: string;
}

/**
 * Options of an outbound request.
 *
 * @example
 * await connection.request('tools/call', { name: 'slow' }, { timeoutMs: 5_000, onprogress: (p) => console.log(p.progress) });
 */
export interface RequestOptions {
  /** Abort the request (it is cancelled on the wire once, and rejects with RequestAbortedError). */
  signal?: AbortSignal | undefined;
  /**
   * Time without a response (or progress, see below) before giving up. Default 60 s. `Infinity`:
   * no idle timeout (the total cap still applies). Negative or NaN: the request rejects with a
   * RangeError. Any length works, also beyond `setTimeout`'s 2^31-1 ms.
   */
  timeoutMs?: number | undefined;
  /** Progress notifications restart the timeout. Default true. */
  resetTimeoutOnProgress?: boolean | undefined;
  /** Hard cap on the request's total time, whatever progress arrives. Default 10 min; `Infinity`: none. */
  maxTotalTimeoutMs?: number | undefined;
  /** Receive `notifications/progress` for this request (adds a progress token). */
  onprogress?: ((progress: Progress) => void) | undefined;
  /** The inbound request this one is made for (routing on HTTP). */
  relatedRequestId?: RequestId | undefined;
  /**
   * Extra HTTP headers for the request that carries this message (2026-07-28 Streamable HTTP:
   * `Mcp-Param-*` for a tool's `x-mcp-header` parameters). Passed to `Transport.send`; transports
   * without headers ignore them.
   */
  headers?: Readonly<Record<string, string>> | undefined;
  /**
   * Told the request's JSON-RPC id as soon as it is allocated, before the request is sent
   * (2026-07-28: the id of a `subscriptions/listen` is its subscription id, which tags the
   * notifications that may arrive before the request ends).
   */
  onRequestId?: ((id: RequestId) => void) | undefined;
}

/**
 * Default time an outbound request waits for its response (or the next progress) before it fails
 * with `RequestTimeoutError`.
 *
 * @example
 * await client.callTool('slow', {}, { timeoutMs: 2 * DEFAULT_TIMEOUT_MS });
 */
export const DEFAULT_TIMEOUT_MS = 60_000;
/**
 * Default hard cap on an outbound request's total time, however much progress arrives.
 *
 * @example
 * new McpClient(info, { connection: { requestDefaults: { maxTotalTimeoutMs: DEFAULT_MAX_TOTAL_TIMEOUT_MS / 2 } } });
 */
export const DEFAULT_MAX_TOTAL_TIMEOUT_MS = 600_000;

/** What a pending request needs from its owner: give it up, and watch its deadline. */
export interface PendingOwner {
  /** Give up on `entry` (timeout or caller abort). */
  abandon(entry: PendingRequest, error: Error): void;
  /** `entry` has a deadline at `due`: expire it (see {@link PendingRequest.expireIfDue}) no later. */
  deadline(due: number, now: number): void;
}

/**
 * A RangeError for a timeout option that is not a number ≥ 0 (`Infinity` is allowed: no limit),
 * or undefined when both are fine. Checked when the request is made, before anything is sent.
 */
export function validateTimeouts(options: RequestOptions): RangeError | undefined {
  for (const name of ['timeoutMs', 'maxTotalTimeoutMs'] as const) {
    const value = options[name];
    if (value === undefined) continue;
    if (typeof value !== 'number' || Number.isNaN(value) || value < 0) {
      return new RangeError(`${name} must be a number >= 0 (Infinity: no limit), got ${String(value)}`);
    }
  }
  return undefined;
}

/**
 * One outbound request. Settles exactly once. Two deadlines: the idle one (`timeoutMs`, moved by
 * progress) and the total one (`maxTotalTimeoutMs`, fixed); the owner's one timer watches the
 * nearer (see DeadlineTimer). `Infinity` turns either off without touching the other.
 */
export class PendingRequest {
  // Not `implements AbortWatcher`: the members that satisfy it are @internal, so in the published
  // .d.ts (stripInternal) the clause would fail to compile. Passing `this` where it is expected
  // checks the shape.
  private readonly startedAt: number;
  private readonly timeoutMs: number;
  private readonly maxTotalMs: number;
  private idleDeadline: number;
  private readonly resetOnProgress: boolean;
  private abortListener: (() => void) | undefined;
  settled = false;

  constructor(
    readonly id: RequestId,
    readonly method: string,
    /** Kept for the message of a failure (`params.name` names the tool, prompt, ...). */
    readonly params: JsonObject | undefined,
    private readonly owner: PendingOwner,
    private readonly resolveFn: (result: JsonObject) => void,
    private readonly rejectFn: (error: unknown) => void,
    private readonly options: RequestOptions | undefined,
    /** The inbound request whose handler made this one: its abort aborts this request too. */
    readonly parent?: InflightRequest,
  ) {
    this.timeoutMs = options?.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.maxTotalMs = options?.maxTotalTimeoutMs ?? DEFAULT_MAX_TOTAL_TIMEOUT_MS;
    this.resetOnProgress = options?.resetTimeoutOnProgress ?? true;
    this.startedAt = Date.now();
    this.idleDeadline = this.startedAt + this.timeoutMs;
    owner.deadline(this.due, this.startedAt);
    const signal = options?.signal;
    if (signal) {
      this.abortListener = () => this.owner.abandon(this, new RequestAbortedError({ cause: signal.reason }));
      signal.addEventListener('abort', this.abortListener, { once: true });
    }
    parent?.watch(this);
  }

  /** The nearer deadline, ms since the epoch (`Infinity`: none). */
  get due(): number {
    return Math.min(this.idleDeadline, this.startedAt + this.maxTotalMs);
  }

  /** The inbound request this one was made for (routing on HTTP), if any. */
  get relatedRequestId(): RequestId | undefined {
    return this.parent?.id ?? this.options?.relatedRequestId;
  }

  /** @internal AbortWatcher: the handler that made this request was aborted. */
  parentAborted(reason: unknown): void {
    this.owner.abandon(this, new RequestAbortedError({ cause: reason }));
  }

  /**
   * Give up with `RequestTimeoutError` if a deadline has passed at `now` (the idle timeout or the
   * total cap, whichever it was). Returns true when it did.
   */
  expireIfDue(now: number): boolean {
    if (this.settled) return false;
    const totalDeadline = this.startedAt + this.maxTotalMs;
    if (now < this.idleDeadline && now < totalDeadline) return false;
    this.owner.abandon(
      this,
      new RequestTimeoutError(now >= totalDeadline ? this.maxTotalMs : this.timeoutMs),
    );
    return true;
  }

  progress(progress: Progress): void {
    const onprogress = this.options?.onprogress;
    if (!onprogress || this.settled) return;
    // A later deadline: the owner's timer may fire at the old one, find nothing due, and re-arm.
    if (this.resetOnProgress && this.timeoutMs !== Infinity) this.idleDeadline = Date.now() + this.timeoutMs;
    onprogress(progress);
  }

  resolve(result: JsonObject): void {
    if (this.release()) this.resolveFn(result);
  }

  reject(error: unknown): void {
    if (this.release()) this.rejectFn(error);
  }

  private release(): boolean {
    if (this.settled) return false;
    this.settled = true;
    if (this.abortListener) this.options?.signal?.removeEventListener('abort', this.abortListener);
    this.abortListener = undefined;
    this.parent?.unwatch(this);
    return true;
  }
}
