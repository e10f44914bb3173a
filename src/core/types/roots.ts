/**
 * Roots: `roots/list` (server → client).
 */
import type { Meta } from './common.js';

/** @example const r: Root = { uri: 'file:///home/me/project', name: 'project' }; */
export type Root = { uri: string; name?: string; _meta?: Meta };

export type ListRootsResult = { roots: Root[]; _meta?: Meta };
