/**
 * Roots: `roots/list` (server → client).
 */
import type { Meta } from './common.js';

/** @example const r: Root = { uri: 'file:///home/me/project', name: 'project' }; */
export type Root = { uri: string; name?: string; _meta?: Meta };

/**
 * `roots/list` result.
 *
 * @example
 * const { roots }: ListRootsResult = await ctx.listRoots();
 */
export type ListRootsResult = { roots: Root[]; _meta?: Meta };
