/**
 * A table of live entries by JSON-RPC id, built for ids that count up: the in-flight and pending
 * tables' storage.
 */
import type { RequestId } from '../jsonrpc.js';

const FIRST_RING = 16;
const MAX_RING = 4096;

/**
 * Why not a Map: entries come and go in nearly FIFO order (request ids count up, answers follow
 * in about the same order), and a V8 Map compacts its deleted slots by allocating a new backing
 * table every few dozen operations: ~45 ns and a few hundred bytes of garbage per request, which
 * the young-generation GC then copies while it is live. Here an entry whose id is a small
 * non-negative integer lives in a ring slot (`id` modulo the ring size), reused in place. Any other
 * id (a string, a negative or fractional number), and an old entry whose slot a newer id needs
 * while the ring is sparse (a straggler), is kept in a Map on the side.
 *
 * Iteration order is ring order then side order, not insertion order.
 *
 * @example
 * const table = new IdTable<{ id: RequestId }>();
 * table.set({ id: 7 });
 * table.get(7); // { id: 7 }
 */
export class IdTable<T extends { readonly id: RequestId }> {
  private ring: (T | undefined)[] | undefined;
  private inRing = 0;
  private side: Map<RequestId, T> | undefined;

  get size(): number {
    return this.inRing + (this.side?.size ?? 0);
  }

  get(id: RequestId): T | undefined {
    const ring = this.ring;
    if (ring !== undefined && isIndex(id)) {
      const held = ring[id & (ring.length - 1)];
      if (held !== undefined && held.id === id) return held;
    }
    return this.side?.get(id);
  }

  /** Add `entry`, replacing a live entry with the same id. */
  set(entry: T): void {
    const id = entry.id;
    if (!isIndex(id)) {
      (this.side ??= new Map()).set(id, entry);
      return;
    }
    const ring = (this.ring ??= new Array<T | undefined>(FIRST_RING).fill(undefined));
    const slot = id & (ring.length - 1);
    const held = ring[slot];
    if (held === undefined) {
      // A live entry with this id may wait on the side (a straggler): the new one replaces it.
      if (this.side !== undefined && this.side.size > 0) this.side.delete(id);
      ring[slot] = entry;
      this.inRing++;
      return;
    }
    if (held.id === id) {
      ring[slot] = entry;
      return;
    }
    if (this.inRing * 2 >= ring.length && ring.length < MAX_RING) {
      this.grow();
      this.set(entry);
      return;
    }
    // `held` is older (ids count up): it waits on the side, and the slot goes to the newer id.
    (this.side ??= new Map()).set(held.id, held);
    ring[slot] = entry;
  }

  /** Remove the entry with `id`; returns it. */
  delete(id: RequestId): T | undefined {
    const ring = this.ring;
    if (ring !== undefined && isIndex(id)) {
      const slot = id & (ring.length - 1);
      const held = ring[slot];
      if (held !== undefined && held.id === id) {
        ring[slot] = undefined;
        this.inRing--;
        return held;
      }
    }
    const side = this.side;
    const entry = side?.get(id);
    if (entry !== undefined) side!.delete(id);
    return entry;
  }

  /** A snapshot of the entries. */
  values(): T[] {
    const all: T[] = [];
    if (this.inRing > 0) for (const entry of this.ring!) if (entry !== undefined) all.push(entry);
    if (this.side) for (const entry of this.side.values()) all.push(entry);
    return all;
  }

  clear(): void {
    if (this.inRing > 0) this.ring!.fill(undefined);
    this.inRing = 0;
    this.side?.clear();
  }

  private grow(): void {
    const old = this.ring!;
    const ring = new Array<T | undefined>(old.length * 2).fill(undefined);
    this.ring = ring;
    this.inRing = 0;
    for (const entry of old) {
      if (entry === undefined) continue;
      const slot = (entry.id as number) & (ring.length - 1);
      if (ring[slot] === undefined) {
        ring[slot] = entry;
        this.inRing++;
      } else (this.side ??= new Map()).set(entry.id, entry);
    }
  }
}

/** A non-negative integer id that fits the ring's arithmetic (`&` works on 32 bits). */
function isIndex(id: RequestId): id is number {
  return typeof id === 'number' && id >= 0 && id <= 0x7fffffff && Number.isInteger(id);
}
