/**
 * The decision half of a modern request's back-channel (input-rounds.ts): one handler run, and
 * exactly one outcome for the request (its value, a round, or an error), decided once. Deciding
 * aborts {@link RoundDecision.signal} and rejects the handler's pending back-channel calls, so its
 * `finally` blocks run while what it does afterwards is discarded.
 */
import type { AbortWatcher } from '../../core/engine/inbound.js';
import type { McpError } from '../../core/errors.js';
import type { AbortSource, RoundOutcome } from './input-round-types.js';

/**
 * An {@link AbortSource} over an AbortSignal, for one watcher at a time (a RoundDecision watches
 * its request once).
 *
 * @example
 * new RequestSignalSource(controller.signal).watchAbort({ parentAborted: (reason) => stop(reason) });
 */
export class RequestSignalSource implements AbortSource {
  private listener: (() => void) | undefined;

  constructor(private readonly signal: AbortSignal) {}

  watchAbort(watcher: AbortWatcher): void {
    const signal = this.signal;
    if (signal.aborted) return watcher.parentAborted(signal.reason);
    this.listener = () => watcher.parentAborted(signal.reason);
    signal.addEventListener('abort', this.listener, { once: true });
  }

  unwatchAbort(): void {
    if (this.listener !== undefined) this.signal.removeEventListener('abort', this.listener);
    this.listener = undefined;
  }
}

/** `collecting`: a question is unanswered; the round is decided one macrotask later. */
export type RoundPhase = 'idle' | 'running' | 'collecting' | 'decided';

/**
 * Runs a handler once and settles its outcome once. Subclasses say what a returned value and a
 * thrown error mean ({@link RoundDecision.returned}, {@link RoundDecision.threw}).
 *
 * @example
 * class Once extends RoundDecision {
 *   protected returned(value: unknown) { this.decide(); this.settle?.resolve({ type: 'complete', value }); }
 *   protected threw(error: unknown) { this.fail(error as McpError); }
 * }
 */
export abstract class RoundDecision implements AbortWatcher {
  protected phase: RoundPhase = 'idle';
  /** Rejections of the back-channel calls still waiting for an answer. */
  protected readonly pending: ((reason: unknown) => void)[] = [];
  protected timer: ReturnType<typeof setTimeout> | undefined;
  /** Why calls made from now on fail: the decision's reason, or ContextClosedError. */
  protected closedReason: unknown;
  protected settle:
    { resolve(outcome: RoundOutcome<unknown>): void; reject(error: unknown): void } | undefined;
  /** Made when first read: a handler that never reads its signal (most) costs no controller. */
  private controller: AbortController | undefined;

  protected constructor(
    /** The request's own abort (peer cancel, close): aborts the run. */
    private readonly requestAbort: AbortSource | undefined,
  ) {}

  /** Aborts (reason: `InputRequiredSignal`) once the request is answered with a round. */
  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.closedReason !== undefined) this.controller.abort(this.closedReason);
    }
    return this.controller.signal;
  }

  /** @internal AbortWatcher: the request itself was aborted (peer cancel, close). */
  parentAborted(reason: unknown): void {
    this.abort(reason);
  }

  /** Run the handler once. Resolves when the request is decided, which may be before the handler ends. */
  run<T>(handler: () => T | Promise<T>): Promise<RoundOutcome<T>> {
    if (this.phase !== 'idle') return Promise.reject(new Error('InputRounds.run may be called once'));
    this.phase = 'running';
    const decided = new Promise<RoundOutcome<T>>((resolve, reject) => {
      this.settle = { resolve: resolve as (outcome: RoundOutcome<unknown>) => void, reject };
    });
    // Decides at once (and the handler never runs) when the request was already aborted.
    this.requestAbort?.watchAbort(this);
    if (this.phase !== 'running') return decided;
    try {
      Promise.resolve(handler()).then(
        (value) => this.returned(value),
        (error: unknown) => this.threw(error),
      );
    } catch (error) {
      this.threw(error);
    }
    return decided;
  }

  /** The handler's promise resolved with `value`. */
  protected abstract returned(value: unknown): void;

  /** The handler threw or its promise rejected. */
  protected abstract threw(error: unknown): void;

  protected fail(error: McpError): void {
    if (this.phase === 'decided') return;
    this.decide(error);
    this.settle?.reject(error);
  }

  protected abort(reason: unknown): void {
    if (this.phase === 'decided') return;
    this.decide(reason);
    this.settle?.reject(reason);
  }

  /** The request is decided: no more calls, pending calls reject with `reason`, the signal aborts. */
  protected decide(reason?: unknown): void {
    this.phase = 'decided';
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.requestAbort?.unwatchAbort(this);
    if (reason === undefined) return;
    this.closedReason = reason;
    this.controller?.abort(reason);
    for (const reject of this.pending.splice(0)) reject(reason);
  }
}
