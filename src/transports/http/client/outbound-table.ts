/**
 * What the client transport has in flight: every fetch and stream (so that close() can end them
 * all), and the requests whose answers are still expected, by id.
 */
import { isRequestId, type RequestId } from '../../../core/jsonrpc.js';
import { RecentIds } from './modern-request.js';

/**
 * One POST in flight; for a request, until its answer arrived or was given up.
 *
 * @example
 * const entry: OutboundRequest = table.open(7, false);
 * entry.answered = true;
 */
export interface OutboundRequest {
  readonly controller: AbortController;
  readonly initialize: boolean;
  /** A 2026-07-28 request: its POST belongs to no session, and its stream cannot be resumed. */
  readonly modern: boolean;
  answered: boolean;
  /** Set once its answer comes as an SSE stream: the session that stream belongs to. */
  stream?: { session: string | undefined };
}

/**
 * In-flight bookkeeping of one transport. Removal is identity-guarded, so a finished entry never
 * removes a later one that reused its id.
 *
 * @example
 * const table = new OutboundTable();
 * const entry = table.open(1, false);
 * table.release(1, entry);
 */
export class OutboundTable {
  private readonly active = new Set<AbortController>();
  private readonly byId = new Map<RequestId, OutboundRequest>();
  private readonly endedModern = new RecentIds(1024);

  /** Requests awaiting their answer (tests, leak checks). */
  get size(): number {
    return this.byId.size;
  }

  /** Fetches and streams in flight (tests, leak checks). */
  get activeCount(): number {
    return this.active.size;
  }

  /** Track a new POST; a request (`id` given) can then be found by its id. */
  open(id: RequestId | undefined, initialize: boolean, modern = false): OutboundRequest {
    const entry: OutboundRequest = { controller: new AbortController(), initialize, modern, answered: false };
    this.active.add(entry.controller);
    if (id !== undefined) this.byId.set(id, entry);
    return entry;
  }

  get(id: RequestId): OutboundRequest | undefined {
    return this.byId.get(id);
  }

  release(id: RequestId | undefined, entry: OutboundRequest): void {
    this.active.delete(entry.controller);
    if (id !== undefined && this.byId.get(id) === entry) this.byId.delete(id);
    if (id !== undefined && entry.modern) this.endedModern.add(id);
  }

  /**
   * Whether `id` is (or recently was) a 2026-07-28 request: its cancellation is the abort of its
   * POST, never a `notifications/cancelled` POST, also when the engine cancels it after the
   * transport already gave it up (a lost stream).
   */
  isModern(id: unknown): boolean {
    if (!isRequestId(id)) return false;
    return this.byId.get(id)?.modern ?? this.endedModern.has(id);
  }

  /** The caller gave up on `id`: stop reading for it. */
  stop(id: unknown): void {
    if (!isRequestId(id)) return;
    const entry = this.byId.get(id);
    if (!entry) return;
    entry.controller.abort();
    this.release(id, entry);
  }

  /** Stop and take every request still streaming its answer in `session`. */
  takeStreaming(session: string): RequestId[] {
    const taken: RequestId[] = [];
    for (const [id, entry] of [...this.byId]) {
      if (entry.answered || entry.stream?.session !== session) continue;
      entry.controller.abort();
      this.release(id, entry);
      taken.push(id);
    }
    return taken;
  }

  /** End every fetch and stream (close). */
  abortAll(): void {
    for (const controller of this.active) controller.abort();
    this.active.clear();
    this.byId.clear();
  }
}
