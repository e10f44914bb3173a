/**
 * The decision half of a modern request's back-channel (input-rounds.ts): one handler run, and
 * exactly one outcome for the request (its value, a round, or an error), decided once. Deciding
 * aborts {@link RoundDecision.signal} and rejects the handler's pending back-channel calls, so its
 * `finally` blocks run while what it does afterwards is discarded.
 */
import type { McpError } from '../../core/errors.js';
import type { RoundOutcome } from './input-round-types.js';

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
export abstract class RoundDecision {
  protected phase: RoundPhase = 'idle';
  /** Rejections of the back-channel calls still waiting for an answer. */
  protected readonly pending: ((reason: unknown) => void)[] = [];
  protected timer: ReturnType<typeof setTimeout> | undefined;
  /** Why calls made from now on fail: the decision's reason, or ContextClosedError. */
  protected closedReason: unknown;
  protected settle:
    { resolve(outcome: RoundOutcome<unknown>): void; reject(error: unknown): void } | undefined;
  private readonly controller = new AbortController();
  private readonly onAbort = (): void => this.abort(this.requestSignal?.reason);

  protected constructor(
    /** The request's own signal (peer cancel, close): aborts the run. */
    private readonly requestSignal: AbortSignal | undefined,
  ) {}

  /** Aborts (reason: `InputRequiredSignal`) once the request is answered with a round. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Run the handler once. Resolves when the request is decided, which may be before the handler ends. */
  run<T>(handler: () => T | Promise<T>): Promise<RoundOutcome<T>> {
    if (this.phase !== 'idle') return Promise.reject(new Error('InputRounds.run may be called once'));
    this.phase = 'running';
    const decided = new Promise<RoundOutcome<T>>((resolve, reject) => {
      this.settle = { resolve: resolve as (outcome: RoundOutcome<unknown>) => void, reject };
    });
    const signal = this.requestSignal;
    if (signal?.aborted) {
      this.abort(signal.reason);
      return decided;
    }
    signal?.addEventListener('abort', this.onAbort, { once: true });
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
    this.requestSignal?.removeEventListener('abort', this.onAbort);
    if (reason === undefined) return;
    this.closedReason = reason;
    this.controller.abort(reason);
    for (const reject of this.pending.splice(0)) reject(reason);
  }
}
