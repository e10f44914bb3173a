/**
 * Who is still there at the other end of a relayed exchange. A process that crashed sends no
 * goodbye, so each side polls `relay.alive(peer)` for the peers it has exchanges with: one
 * unref'd timer for all of them, running only while something is watched.
 */
import { unrefTimer } from '../../../../core/timers.js';
import type { Logger } from '../../../../core/engine/connection.js';
import type { Relay } from './relay.js';

/**
 * Calls each watcher's `onLost` once when its peer reads as gone (or liveness cannot be read:
 * the medium is down, so nothing would arrive from the peer either).
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

  constructor(
    private readonly relay: Relay,
    private readonly intervalMs: number,
    private readonly logger: Logger,
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
      if (current.size === 0) this.watchers.delete(peer);
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
            alive = false;
          }
          if (!alive) this.lose(peer);
        }),
      );
    } finally {
      this.checking = false;
    }
    this.schedule();
  }

  private lose(peer: string): void {
    const set = this.watchers.get(peer);
    this.watchers.delete(peer);
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
