/**
 * Who is still there at the other end of a relayed exchange. A process that crashed sends no
 * goodbye, so each side polls `relay.alive(peer)` for the peers it has exchanges with: one
 * unref'd timer for all of them, running only while something is watched.
 */
import { unrefTimer } from '../../../core/timers.js';
import type { Logger } from '../../../core/engine/connection.js';
import type { Relay } from './relay.js';

/**
 * Calls each watcher's `onLost` once when its peer reads as gone, or when its liveness could not
 * be read for longer than `failWindowMs` (the medium is down for good, so nothing would arrive
 * from the peer either). One failed read (a timeout) is not a dead peer: a real connection drop
 * is reported by the relay's `interrupted()` anyway.
 *
 * @example
 * const watch = new PeerWatch(relay, 1_000, logger);
 * const unwatch = watch.watch(ownerId, () => failExchange());
 * // when the exchange ends normally: unwatch();
 */
export class PeerWatch {
  private readonly watchers = new Map<string, Set<() => void>>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private checking = false;
  private stopped = false;
  /** Peers whose liveness reads fail, since when (ms). */
  private readonly failingSince = new Map<string, number>();

  constructor(
    private readonly relay: Relay,
    private readonly intervalMs: number,
    private readonly logger: Logger,
    /** How long liveness reads may keep failing before the peer counts as lost. */
    private readonly failWindowMs = 5 * intervalMs,
  ) {}

  /** Watch `peer` for one exchange; the returned function stops watching (idempotent). */
  watch(peer: string, onLost: () => void): () => void {
    let set = this.watchers.get(peer);
    if (!set) this.watchers.set(peer, (set = new Set()));
    const entry = (): void => onLost();
    set.add(entry);
    this.schedule();
    return () => {
      const current = this.watchers.get(peer);
      if (!current?.delete(entry)) return;
      if (current.size === 0) {
        this.watchers.delete(peer);
        this.failingSince.delete(peer);
      }
      if (this.watchers.size === 0) this.unschedule();
    };
  }

  /** Every watched peer counts as lost (the medium said it may have lost messages). */
  loseAll(): void {
    for (const peer of [...this.watchers.keys()]) this.lose(peer);
  }

  /** No more checks (handler closing). */
  stop(): void {
    this.stopped = true;
    this.unschedule();
  }

  private schedule(): void {
    if (this.stopped || this.timer !== undefined || this.checking || this.watchers.size === 0) return;
    this.timer = unrefTimer(setTimeout(check, this.intervalMs, this));
  }

  private unschedule(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** @internal One round of checks; runs from the timer. */
  async check(): Promise<void> {
    this.timer = undefined;
    this.checking = true;
    try {
      await Promise.all(
        [...this.watchers.keys()].map(async (peer) => {
          let alive: boolean;
          try {
            alive = await this.relay.alive(peer);
          } catch (error) {
            this.logger.error('relay: could not check whether a peer process is alive', error);
            if (!this.failingTooLong(peer)) return;
            alive = false;
          }
          if (alive) this.failingSince.delete(peer);
          else this.lose(peer);
        }),
      );
    } finally {
      this.checking = false;
    }
    this.schedule();
  }

  /** Record one failed read; true once reads for `peer` have failed for the whole window. */
  private failingTooLong(peer: string): boolean {
    const now = Date.now();
    const since = this.failingSince.get(peer);
    if (since === undefined) this.failingSince.set(peer, now);
    return since !== undefined && now - since >= this.failWindowMs;
  }

  private lose(peer: string): void {
    const set = this.watchers.get(peer);
    this.watchers.delete(peer);
    this.failingSince.delete(peer);
    if (this.watchers.size === 0) this.unschedule();
    for (const onLost of set ?? []) {
      try {
        onLost();
      } catch (error) {
        this.logger.error('relay: failing an exchange of a lost peer failed', error);
      }
    }
  }
}

function check(watch: PeerWatch): void {
  void watch.check();
}
