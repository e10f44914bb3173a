/**
 * The in-flight table: inbound requests accepted and not yet answered (running or queued), by id.
 */
import type { RequestId } from '../jsonrpc.js';
import { IdTable } from './id-table.js';
import type { InflightRequest } from './inbound.js';

/**
 * At most one entry per id: the engine refuses a request whose id is still here (guarantee 4), so
 * a cancel by id has exactly one target. Removal is identity-guarded, so a finished request never
 * evicts a later one that reused its id after the first was cancelled.
 */
export class InflightTable {
  /**
   * The entry while it is the only one, without a Map: an HTTP session that answered its
   * `initialize` and went idle keeps no Map (memory per idle session), and one request at a time
   * allocates none. The table is made when a second entry comes, and kept.
   */
  private only: InflightRequest | undefined;
  private byId: IdTable<InflightRequest> | undefined;
  /** Entries that belong to one of our outbound requests (rare: keeps the common path short). */
  private related = 0;

  get size(): number {
    return this.byId ? this.byId.size : this.only ? 1 : 0;
  }

  has(id: RequestId): boolean {
    return this.peek(id) !== undefined;
  }

  add(entry: InflightRequest): void {
    if (entry.relatedOutbound !== undefined) this.related++;
    if (this.byId) this.byId.set(entry);
    else if (!this.only) this.only = entry;
    else {
      this.byId = new IdTable();
      this.byId.set(this.only);
      this.byId.set(entry);
      this.only = undefined;
    }
  }

  /** Remove a finished entry (only itself, never a newer entry with the same id). */
  remove(entry: InflightRequest): void {
    if (this.byId) {
      if (this.byId.get(entry.id) !== entry) return;
      this.byId.delete(entry.id);
    } else if (this.only === entry) this.only = undefined;
    else return;
    if (entry.relatedOutbound !== undefined) this.related--;
  }

  /** Take every entry that the peer sent for our outbound request `outboundId`. */
  takeRelated(outboundId: RequestId): InflightRequest[] {
    if (this.related === 0) return [];
    const found: InflightRequest[] = [];
    for (const entry of this.byId ? this.byId.values() : [this.only!]) {
      if (entry.relatedOutbound === outboundId) found.push(entry);
    }
    for (const entry of found) this.remove(entry);
    return found;
  }

  /** Take the entry a cancel for `id` targets, if any. */
  take(id: RequestId): InflightRequest | undefined {
    const entry = this.peek(id);
    if (entry) this.remove(entry);
    return entry;
  }

  peek(id: RequestId): InflightRequest | undefined {
    if (this.byId) return this.byId.get(id);
    const only = this.only;
    // Map semantics (SameValueZero): ids are strings or numbers, so `===` differs only on NaN,
    // which is not a valid JSON-RPC id.
    return only !== undefined && only.id === id ? only : undefined;
  }

  /** Empty the table and return a snapshot (aborting runs user code that may call back). */
  takeAll(): InflightRequest[] {
    const all = this.byId ? this.byId.values() : this.only ? [this.only] : [];
    this.byId?.clear();
    this.only = undefined;
    this.related = 0;
    return all;
  }
}
