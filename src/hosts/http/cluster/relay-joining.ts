/**
 * Listening on the relay for one handler: started at creation, retried in the background when it
 * fails (a process with no routed traffic, or with `sessions: false`, must still join the
 * deployment's fan-out), never again after close.
 */
import type { Logger } from '../../../core/engine/connection.js';
import { StoreUnavailableError } from '../../../core/errors.js';
import { unrefTimer } from '../../../core/timers.js';
import type { Relay, RelayListener } from './relay.js';

/** First retry of a failed `listen()`, doubled per failure up to {@link RETRY_MAX_MS}. */
const RETRY_MS = 1_000;
const RETRY_MAX_MS = 30_000;

/**
 * One `relay.listen(listener)` at a time; a failure is retried by the next `listen()` call and by
 * an unref'd backoff timer (1 s doubling to 30 s), cleared on success and on `stop()`.
 *
 * @example
 * const joining = new RelayJoining(relay, listener, logger);
 * joining.start(); // listens now, retries until it works
 * await joining.listen(); // before routing a request
 * await joining.stop(); // closing: no more attempts; the one in flight has settled
 */
export class RelayJoining {
  private listening: Promise<void> | undefined;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private retryMs = RETRY_MS;
  private stopped = false;

  constructor(
    private readonly relay: Relay,
    private readonly listener: RelayListener,
    private readonly logger: Logger,
  ) {}

  /** Listening on the relay; a failed attempt is retried by the next call (and by the timer). */
  listen(): Promise<void> {
    // Never (again) after stop: the relay would announce a process that is gone.
    if (this.stopped) return Promise.reject(new StoreUnavailableError('relay', 'listen'));
    return (this.listening ??= this.relay.listen(this.listener).then(
      () => this.clearRetry(),
      (error: unknown) => {
        this.listening = undefined;
        throw error;
      },
    ));
  }

  /** Listen now; on failure, again after the backoff until it works or `stop()`. */
  start(): void {
    this.listen().catch((error: unknown) => {
      this.logger.error('relay: listen failed (retried)', error);
      if (this.stopped || this.retryTimer !== undefined) return;
      this.retryTimer = unrefTimer(setTimeout(() => this.retry(), this.retryMs));
      this.retryMs = Math.min(this.retryMs * 2, RETRY_MAX_MS);
    });
  }

  /** No more attempts; resolves once a listen still on its way has settled (either way). */
  stop(): Promise<void> {
    this.stopped = true;
    this.clearRetry();
    return this.listening?.catch(() => undefined) ?? Promise.resolve();
  }

  private retry(): void {
    this.retryTimer = undefined;
    this.start();
  }

  private clearRetry(): void {
    if (this.retryTimer !== undefined) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    this.retryMs = RETRY_MS;
  }
}
