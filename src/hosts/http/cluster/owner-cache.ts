/**
 * Which process owns which session, as last read from the shared store: a bounded
 * least-recently-used map, so the sessions in use stay cached however many others pass by.
 */

/**
 * Session id → owner node id, at most `max` entries; a hit makes the entry the most recent.
 *
 * @example
 * const owners = new OwnerCache(1_024);
 * owners.set(sessionId, 'node-a');
 * owners.get(sessionId); // 'node-a' (now the most recently used)
 */
export class OwnerCache {
  // A Map iterates in insertion order: re-inserting on a hit keeps the oldest first.
  private readonly owners = new Map<string, string>();

  constructor(private readonly max: number) {}

  get size(): number {
    return this.owners.size;
  }

  get(sessionId: string): string | undefined {
    const owner = this.owners.get(sessionId);
    if (owner === undefined) return undefined;
    this.owners.delete(sessionId);
    this.owners.set(sessionId, owner);
    return owner;
  }

  set(sessionId: string, owner: string): void {
    this.owners.delete(sessionId);
    if (this.owners.size >= this.max) this.owners.delete(this.owners.keys().next().value!);
    this.owners.set(sessionId, owner);
  }

  delete(sessionId: string): void {
    this.owners.delete(sessionId);
  }
}
