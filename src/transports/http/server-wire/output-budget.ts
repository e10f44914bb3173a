/**
 * Limits on output queued for clients that do not read it. A client that stops reading while
 * keeping its socket open would otherwise pin everything the server sends it; past the limits its
 * connection is cut (the response aborted, its backlog freed). A resumable stream lives on in the
 * event store, so a client that was only slow can resume.
 */

/** One SSE connection, as the budget sees it. */
export interface Budgeted {
  /** Bytes queued now that the client has not taken. */
  queuedNow(): number;
  /** Abort the connection at once (drops its backlog). */
  cut(): void;
}

/**
 * Per-connection and handler-wide byte limits for queued SSE output.
 *
 * @example
 * const budget = new OutputBudget(16 * 1024 * 1024, 128 * 1024 * 1024);
 * if (backlog > budget.perStream) writer.cut(); else budget.update(writer, sink.queued());
 */
export class OutputBudget {
  /** Last known queued bytes per connection; only connections with something queued. */
  private readonly queued = new Map<Budgeted, number>();
  private sum = 0;
  private rebalancing = false;

  constructor(
    /** A connection whose backlog (before a write) exceeds this is cut. */
    readonly perStream: number,
    /** When the queued bytes of all connections exceed this, the one with the most is cut. */
    readonly total: number,
  ) {}

  /** Bytes queued across all connections, as last seen. */
  get totalQueued(): number {
    return this.sum;
  }

  /**
   * Record that `writer` has `bytes` queued (after a write) and enforce the total. Returns false
   * when `writer` itself was cut.
   */
  update(writer: Budgeted, bytes: number): boolean {
    const before = this.queued.get(writer) ?? 0;
    if (bytes > 0) this.queued.set(writer, bytes);
    else this.queued.delete(writer);
    this.sum += bytes - before;
    if (this.sum > this.total && !this.rebalancing) this.rebalance();
    return bytes === 0 || this.queued.has(writer);
  }

  /** The connection ended: its queue no longer counts. */
  remove(writer: Budgeted): void {
    const before = this.queued.get(writer);
    if (before === undefined) return;
    this.queued.delete(writer);
    this.sum -= before;
  }

  /** Over the total: refresh every count (clients read since), then cut the largest until under. */
  private rebalance(): void {
    this.rebalancing = true;
    try {
      let sum = 0;
      for (const [writer] of this.queued) {
        const bytes = writer.queuedNow();
        if (bytes > 0) this.queued.set(writer, bytes);
        else this.queued.delete(writer);
        sum += bytes > 0 ? bytes : 0;
      }
      this.sum = sum;
      while (this.sum > this.total) {
        let largest: Budgeted | undefined;
        let most = 0;
        for (const [writer, bytes] of this.queued) {
          if (bytes > most) {
            most = bytes;
            largest = writer;
          }
        }
        if (!largest) break;
        // cut() ends the writer, which removes it (and its bytes) from the table.
        this.remove(largest);
        largest.cut();
      }
    } finally {
      this.rebalancing = false;
    }
  }
}
