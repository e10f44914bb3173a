/**
 * Walks a paginated list (`tools/list`, `resources/list`, ...) by `nextCursor`. A server that
 * hands out a cursor it already gave would make a naive loop spin forever; this one stops with a
 * {@link ProtocolViolationError} instead, and also stops after `maxPages`.
 */
import type { CacheMode } from './cache/cached-results.js';
import type { PaginatedParams, PaginatedResult } from '../core/types/common.js';
import { ProtocolViolationError } from './errors.js';

/**
 * @example
 * for await (const tool of client.tools({ maxPages: 50 })) console.log(tool.name);
 */
export interface PaginateOptions {
  /** Stop (with an error) after this many pages. Default 10 000. */
  maxPages?: number;
  signal?: AbortSignal | undefined;
  /** Per-page request timeout. */
  timeoutMs?: number | undefined;
  /** 2026-07-28 result cache, per page (see `CallOptions.cache`): `'refresh'` re-fetches every page. */
  cache?: CacheMode | undefined;
}

/**
 * Default page limit of the listing helpers (`client.tools()`, `listAllTools()`, ...).
 *
 * @example
 * for await (const tool of client.tools({ maxPages: DEFAULT_MAX_PAGES / 100 })) console.log(tool.name);
 */
export const DEFAULT_MAX_PAGES = 10_000;

/**
 * Yield every item of every page. `fetchPage(cursor)` gets `undefined` for the first page.
 *
 * @example
 * const all = [];
 * for await (const tool of paginate((cursor) => client.listTools({ cursor }), (page) => page.tools)) all.push(tool);
 */
export async function* paginate<Page extends PaginatedResult, Item>(
  fetchPage: (cursor: string | undefined) => Promise<Page>,
  itemsOf: (page: Page) => readonly Item[],
  options: Pick<PaginateOptions, 'maxPages'> = {},
): AsyncGenerator<Item, void, undefined> {
  const maxPages = options.maxPages ?? DEFAULT_MAX_PAGES;
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let pages = 1; ; pages++) {
    const page = await fetchPage(cursor);
    yield* itemsOf(page);
    const next = page.nextCursor;
    if (next === undefined || next === null) return;
    if (typeof next !== 'string') {
      throw new ProtocolViolationError(
        `Server sent a nextCursor that is not a string: ${JSON.stringify(next)}`,
      );
    }
    if (seen.has(next)) {
      throw new ProtocolViolationError(
        `Server repeated cursor ${JSON.stringify(next)}: the listing would never end`,
      );
    }
    if (pages >= maxPages) {
      throw new ProtocolViolationError(`Listing exceeded ${maxPages} pages; stopped`);
    }
    seen.add(next);
    cursor = next;
  }
}

/**
 * The items of a client's paginated list, page by page: `listPage` is its one-page method
 * (`listTools`, `listResources`, ...), called with each page's cursor and the walk's `signal` and
 * `timeoutMs`; `key` names the array of items in a page. The iterate and list-all helpers of every
 * list (`tools()`/`listAllTools()`, `resources()`, ...) are this.
 *
 * @example
 * const tools = walkList((params, options) => client.listTools(params, options), 'tools', { maxPages: 5 });
 * for await (const tool of tools) console.log(tool.name);
 */
export function walkList<Key extends string, Item>(
  listPage: (
    params: PaginatedParams,
    options: ReturnType<typeof pageOptions>,
  ) => Promise<PaginatedResult & { [K in Key]: readonly Item[] }>,
  key: Key,
  options: PaginateOptions = {},
): AsyncGenerator<Item, void, undefined> {
  return paginate(
    (cursor) => listPage(pageParams(cursor), pageOptions(options)),
    (page) => page[key],
    options,
  );
}

/**
 * Collect every item of every page into one array.
 *
 * @example
 * const tools = await collect(client.tools());
 */
export async function collect<Item>(items: AsyncIterable<Item>): Promise<Item[]> {
  const all: Item[] = [];
  for await (const item of items) all.push(item);
  return all;
}

/**
 * The params of one page request: `{ cursor }`, or `{}` for the first page.
 *
 * @example
 * pageParams(undefined); // {}
 * pageParams('c2'); // { cursor: 'c2' }
 */
export function pageParams(cursor: string | undefined): { cursor?: string } {
  return cursor === undefined ? {} : { cursor };
}

/**
 * The per-page request options a walk passes on: only the keys the caller set (an explicit
 * `undefined` would override the connection's defaults).
 *
 * @example
 * pageOptions({ signal, maxPages: 5 }); // { signal }
 */
export function pageOptions({ signal, timeoutMs, cache }: PaginateOptions): {
  signal?: AbortSignal;
  timeoutMs?: number;
  cache?: CacheMode;
} {
  const options: { signal?: AbortSignal; timeoutMs?: number; cache?: CacheMode } = {};
  if (signal !== undefined) options.signal = signal;
  if (timeoutMs !== undefined) options.timeoutMs = timeoutMs;
  if (cache !== undefined) options.cache = cache;
  return options;
}
