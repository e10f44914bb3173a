/**
 * The in-flight table: inbound requests being handled, by id.
 */
import type { RequestId } from '../jsonrpc.js';
import type { InflightRequest } from './inbound.js';

/**
 * Keeps every running inbound request reachable for teardown, while a cancel by id always targets
 * the newest request with that id. A peer that reuses an id still in flight displaces the older
 * entry: it can no longer be cancelled by id, but close still aborts it. Removal is
 * identity-guarded, so a finished request never evicts a later one that reused its id.
 */
export class InflightTable {
  private readonly byId = new Map<RequestId, InflightRequest>();
  private readonly displaced = new Set<InflightRequest>();
  /** Entries that belong to one of our outbound requests (rare: keeps the common path a Map). */
  private related = 0;

  get size(): number {
    return this.byId.size + this.displaced.size;
  }

  add(entry: InflightRequest): void {
    if (entry.relatedOutbound !== undefined) this.related++;
    const previous = this.byId.get(entry.id);
    if (previous) this.displaced.add(previous);
    this.byId.set(entry.id, entry);
  }

  /** Remove a finished entry (only itself, never a newer entry with the same id). */
  remove(entry: InflightRequest): void {
    const removed =
      this.byId.get(entry.id) === entry ? this.byId.delete(entry.id) : this.displaced.delete(entry);
    if (removed && entry.relatedOutbound !== undefined) this.related--;
  }

  /** Take every entry that the peer sent for our outbound request `outboundId`. */
  takeRelated(outboundId: RequestId): InflightRequest[] {
    if (this.related === 0) return [];
    const found: InflightRequest[] = [];
    for (const entry of [...this.byId.values(), ...this.displaced]) {
      if (entry.relatedOutbound === outboundId) found.push(entry);
    }
    for (const entry of found) this.remove(entry);
    return found;
  }

  /** Take the entry a cancel for `id` targets, if any. */
  take(id: RequestId): InflightRequest | undefined {
    const entry = this.byId.get(id);
    if (entry) {
      this.byId.delete(id);
      if (entry.relatedOutbound !== undefined) this.related--;
    }
    return entry;
  }

  peek(id: RequestId): InflightRequest | undefined {
    return this.byId.get(id);
  }

  /** Empty the table and return a snapshot (aborting runs user code that may call back). */
  takeAll(): InflightRequest[] {
    const all = [...this.byId.values(), ...this.displaced];
    this.byId.clear();
    this.displaced.clear();
    this.related = 0;
    return all;
  }
}
