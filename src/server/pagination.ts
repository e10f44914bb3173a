/**
 * Cursor pagination for the list methods. The cursor is opaque to clients (base64 of a small JSON
 * record); anything we did not mint is rejected with -32602.
 */
import { ErrorCode, McpError } from '../core/errors.js';
import type { JsonObject } from '../core/jsonrpc.js';

/**
 * Default page size of `tools/list`, `resources/list`, `resources/templates/list`, `prompts/list`.
 *
 * @example
 * new McpServer({ name: 'big', version: '1.0.0' }, { pageSize: DEFAULT_PAGE_SIZE / 2 });
 */
export const DEFAULT_PAGE_SIZE = 100;

function encodeCursor(list: string, offset: number): string {
  return btoa(JSON.stringify({ l: list, o: offset }));
}

function decodeCursor(cursor: unknown, list: string, length: number): number {
  if (typeof cursor !== 'string') throw invalidCursor();
  let parsed: unknown;
  try {
    parsed = JSON.parse(atob(cursor));
  } catch {
    throw invalidCursor();
  }
  const record = parsed as { l?: unknown; o?: unknown } | null;
  const offset = record?.o;
  // A list that shrank since the cursor was minted simply ends early; a cursor of another list or
  // a forged offset is an error.
  if (record?.l !== list || typeof offset !== 'number' || !Number.isInteger(offset) || offset < 0) {
    throw invalidCursor();
  }
  return Math.min(offset, length);
}

function invalidCursor(): McpError {
  return new McpError(ErrorCode.InvalidParams, 'Invalid cursor');
}

/**
 * One page of `items` for the request `params` (`cursor` optional), as `{ [key]: page, nextCursor? }`.
 *
 * @example
 * paginate('tools', tools, params, 50); // { tools: [...50], nextCursor: 'eyJ...' }
 */
export function paginate<T>(
  key: string,
  items: readonly T[],
  params: JsonObject,
  pageSize: number,
): JsonObject {
  const start = params.cursor === undefined ? 0 : decodeCursor(params.cursor, key, items.length);
  const size = pageSize > 0 ? pageSize : items.length;
  const end = Math.min(items.length, start + size);
  const result: JsonObject = { [key]: items.slice(start, end) };
  if (end < items.length) result.nextCursor = encodeCursor(key, end);
  return result;
}
