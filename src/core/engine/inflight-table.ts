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

  get size(): number {
    return this.byId.size + this.displaced.size;
  }

  add(entry: InflightRequest): void {
    const previous = this.byId.get(entry.id);
    if (previous) this.displaced.add(previous);
    this.byId.set(entry.id, entry);
  }

  /** Remove a finished entry (only itself, never a newer entry with the same id). */
  remove(entry: InflightRequest): void {
    if (this.byId.get(entry.id) === entry) this.byId.delete(entry.id);
    else this.displaced.delete(entry);
  }

  /** Take the entry a cancel for `id` targets, if any. */
  take(id: RequestId): InflightRequest | undefined {
    const entry = this.byId.get(id);
    if (entry) this.byId.delete(id);
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
    return all;
  }
}
