/**
 * The pending table: outbound requests awaiting their response, by id.
 */
import type { JsonObject, RequestId } from '../jsonrpc.js';
import { IdTable } from './id-table.js';
import type { PendingRequest, Progress } from './outbound.js';

/**
 * Allocates request ids and correlates responses. Removal is identity-guarded; `failAll` rejects
 * from a snapshot because rejecting wakes callers that may touch the table.
 */
export class PendingTable {
  /** Allocated on the first outbound request: most HTTP sessions never make one. */
  private byId: IdTable<PendingRequest> | undefined;
  private nextId = 0;

  /**
   * `watcher.drained()` is called each time the last entry leaves, whichever way it left. An
   * object rather than a callback: no closure per connection (memory per idle HTTP session).
   */
  constructor(private readonly watcher?: { drained(): void }) {}

  get size(): number {
    return this.byId?.size ?? 0;
  }

  allocateId(): number {
    return this.nextId++;
  }

  add(entry: PendingRequest): void {
    (this.byId ??= new IdTable()).set(entry);
  }

  get(id: RequestId): PendingRequest | undefined {
    return this.byId?.get(id);
  }

  /** Remove `entry` if it is still the one registered under its id. */
  remove(entry: PendingRequest): void {
    if (this.byId?.get(entry.id) !== entry) return;
    this.byId.delete(entry.id);
    if (this.byId.size === 0) this.watcher?.drained();
  }

  /** Take the entry a response for `id` settles, if any. */
  take(id: RequestId): PendingRequest | undefined {
    const entry = this.byId?.delete(id);
    if (entry && this.byId!.size === 0) this.watcher?.drained();
    return entry;
  }

  /** A snapshot of the entries. */
  values(): PendingRequest[] {
    return this.byId?.values() ?? [];
  }

  /** Reject every entry with `errorFor(entry)`, exactly once each. */
  failAll(errorFor: (entry: PendingRequest) => unknown): void {
    if (!this.byId || this.byId.size === 0) return;
    const all = this.byId.values();
    this.byId.clear();
    this.watcher?.drained();
    for (const entry of all) entry.reject(errorFor(entry));
  }
}

/** The progress of a `notifications/progress` payload, or undefined when malformed. */
export function toProgress(params: JsonObject): Progress | undefined {
  if (typeof params.progress !== 'number') return undefined;
  const progress: Progress = { progress: params.progress };
  if (typeof params.total === 'number') progress.total = params.total;
  if (typeof params.message === 'string') progress.message = params.message;
  return progress;
}
