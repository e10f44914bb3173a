/**
 * Least-recently-used order without allocation: the entries carry their own links, so marking one
 * as used is a few pointer moves (re-inserting into a `Map` for every request reallocates the
 * table now and then, in the old generation, for a table that lives as long as the handler).
 */

/** An entry of a {@link RecencyList}: the list owns these two fields. */
export interface RecencyEntry<T> {
  /** @internal The next more recently used entry. */
  newer: T | undefined;
  /** @internal The next less recently used entry. */
  older: T | undefined;
}

/**
 * Entries from least to most recently used.
 *
 * @example
 * const list = new RecencyList<Session>();
 * list.touch(a); list.touch(b); list.touch(a);
 * list.oldest; // b
 */
export class RecencyList<T extends RecencyEntry<T>> {
  oldest: T | undefined;
  newest: T | undefined;

  /** Make `entry` the most recently used, adding it if it is not in the list. */
  touch(entry: T): void {
    if (this.newest === entry) return;
    this.remove(entry);
    entry.older = this.newest;
    if (this.newest) this.newest.newer = entry;
    else this.oldest = entry;
    this.newest = entry;
  }

  /** Take `entry` out of the list (nothing happens if it is not in it). */
  remove(entry: T): void {
    const { newer, older } = entry;
    if (newer) newer.older = older;
    else if (this.newest === entry) this.newest = older;
    else return;
    if (older) older.newer = newer;
    else this.oldest = newer;
    entry.newer = entry.older = undefined;
  }
}
