/**
 * The in-flight table: inbound requests accepted and not yet answered (running or queued), by id.
 */
import type { RequestId } from '../jsonrpc.js';
import type { InflightRequest } from './inbound.js';

/**
 * At most one entry per id: the engine refuses a request whose id is still here (guarantee 4), so
 * a cancel by id has exactly one target. Removal is identity-guarded, so a finished request never
 * evicts a later one that reused its id after the first was cancelled.
 */
export class InflightTable {
  private readonly byId = new Map<RequestId, InflightRequest>();
  /** Entries that belong to one of our outbound requests (rare: keeps the common path a Map). */
  private related = 0;

  get size(): number {
    return this.byId.size;
  }

  has(id: RequestId): boolean {
    return this.byId.has(id);
  }

  add(entry: InflightRequest): void {
    if (entry.relatedOutbound !== undefined) this.related++;
    this.byId.set(entry.id, entry);
  }

  /** Remove a finished entry (only itself, never a newer entry with the same id). */
  remove(entry: InflightRequest): void {
    if (this.byId.get(entry.id) !== entry) return;
    this.byId.delete(entry.id);
    if (entry.relatedOutbound !== undefined) this.related--;
  }

  /** Take every entry that the peer sent for our outbound request `outboundId`. */
  takeRelated(outboundId: RequestId): InflightRequest[] {
    if (this.related === 0) return [];
    const found: InflightRequest[] = [];
    for (const entry of this.byId.values()) {
      if (entry.relatedOutbound === outboundId) found.push(entry);
    }
    for (const entry of found) this.remove(entry);
    return found;
  }

  /** Take the entry a cancel for `id` targets, if any. */
  take(id: RequestId): InflightRequest | undefined {
    const entry = this.byId.get(id);
    if (entry) this.remove(entry);
    return entry;
  }

  peek(id: RequestId): InflightRequest | undefined {
    return this.byId.get(id);
  }

  /** Empty the table and return a snapshot (aborting runs user code that may call back). */
  takeAll(): InflightRequest[] {
    const all = [...this.byId.values()];
    this.byId.clear();
    this.related = 0;
    return all;
  }
}
