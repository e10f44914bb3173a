/**
 * Which session to give up when the table is full. Sessions sit in three least-recently-used
 * lists by how far they got: `opening` (no `notifications/initialized` yet), `ready` (handshake
 * done, no call yet) and `working` (made at least one call other than `initialize` or `ping`).
 * A flood of handshake-only sessions therefore evicts itself, never a session that did work.
 */
import { RecencyList, type RecencyEntry } from './recency-list.js';
import type { HttpServerTransport } from './session-transport.js';

/** How far a session got; a session only moves up. */
export const Tier = { Opening: 0, Ready: 1, Working: 2 } as const;
/** A value of {@link Tier}. */
export type Tier = (typeof Tier)[keyof typeof Tier];

/**
 * One row of the session table: the transport, its tier, and the client key it counts against.
 *
 * @example
 * const slot = new SessionSlot(transport, undefined);
 */
export class SessionSlot implements RecencyEntry<SessionSlot> {
  tier: Tier = Tier.Opening;
  newer: SessionSlot | undefined;
  older: SessionSlot | undefined;

  constructor(
    readonly transport: HttpServerTransport,
    /** The host's client key (see `sessions.clientKey`), if it gave one. */
    readonly key: string | undefined,
  ) {}
}

/**
 * The three recency lists and the eviction and expiry walks over them.
 *
 * @example
 * const tiers = new SessionTiers();
 * tiers.touch(slot);
 * const victim = tiers.evictable(Date.now() - 300_000);
 */
export class SessionTiers {
  private readonly lists = [
    new RecencyList<SessionSlot>(),
    new RecencyList<SessionSlot>(),
    new RecencyList<SessionSlot>(),
  ] as const;

  /** Mark `slot` as used (most recent in its tier), adding it if new. */
  touch(slot: SessionSlot): void {
    this.lists[slot.tier].touch(slot);
  }

  /** Move `slot` up to `tier` (never down), as the most recent entry there. */
  promote(slot: SessionSlot, tier: Tier): void {
    if (tier <= slot.tier) return;
    this.lists[slot.tier].remove(slot);
    slot.tier = tier;
    this.lists[tier].touch(slot);
  }

  remove(slot: SessionSlot): void {
    this.lists[slot.tier].remove(slot);
  }

  /**
   * The session to evict: the least recently used one with no open exchange, from the lowest
   * tier that has one. A working session qualifies only if it saw no HTTP activity since
   * `workCutoff`; past that, undefined (the caller answers 503).
   */
  evictable(workCutoff: number): SessionSlot | undefined {
    for (const list of [this.lists[Tier.Opening], this.lists[Tier.Ready]]) {
      for (let slot = list.oldest; slot; slot = slot.newer) if (!inUse(slot)) return slot;
    }
    for (let slot = this.lists[Tier.Working].oldest; slot; slot = slot.newer) {
      // LRU order: everything after the first recently active session is recent too.
      if (slot.transport.lastSeen > workCutoff) return undefined;
      if (!inUse(slot)) return slot;
    }
    return undefined;
  }

  /**
   * Every session with no open exchange last active at or before `cutoff` (collected first: the
   * caller ends them). A running handler does not keep a session alive: its client may be gone.
   */
  expired(cutoff: number): SessionSlot[] {
    const found: SessionSlot[] = [];
    for (const list of this.lists) {
      for (let slot = list.oldest; slot; slot = slot.newer) {
        if (slot.transport.lastSeen > cutoff) break;
        if (slot.transport.attached === 0) found.push(slot);
      }
    }
    return found;
  }
}

/** An open exchange (pending POST or SSE stream) or a handler still running. */
function inUse(slot: SessionSlot): boolean {
  const transport = slot.transport;
  return transport.attached > 0 || (transport.session?.connection.inflightCount ?? 0) > 0;
}
