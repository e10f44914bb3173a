/**
 * Client side of `roots/list`: a static list (changed with `setRoots`) or a function.
 */
import type { RequestContext } from '../core/engine/request-context.js';
import type { Root } from '../core/types/roots.js';

/**
 * Where the client's roots come from.
 *
 * @example
 * const roots: RootsSource = [{ uri: 'file:///home/me/project', name: 'project' }];
 * const dynamic: RootsSource = async () => (await openWorkspaces()).map((dir) => ({ uri: pathToFileURL(dir).href }));
 */
export type RootsSource =
  readonly Root[] | ((ctx: RequestContext) => readonly Root[] | Promise<readonly Root[]>);

/**
 * Reject roots that are not `file://` URIs (the 2025-11-25 schema requires it) with a clear error.
 *
 * @example
 * checkRoots([{ uri: 'https://x' }]); // throws TypeError
 */
export function checkRoots(roots: readonly Root[]): Root[] {
  if (!Array.isArray(roots)) throw new TypeError('roots must be an array');
  return roots.map((root, index) => {
    if (typeof root !== 'object' || root === null || typeof root.uri !== 'string') {
      throw new TypeError(`roots[${index}] must be an object with a uri`);
    }
    if (!root.uri.startsWith('file://')) {
      throw new TypeError(`roots[${index}].uri must be a file:// URI, got ${root.uri}`);
    }
    return { ...root };
  });
}

/** Current roots for a `roots/list` request. */
export async function resolveRoots(source: RootsSource, ctx: RequestContext): Promise<{ roots: Root[] }> {
  const roots = typeof source === 'function' ? await source(ctx) : source;
  return { roots: [...roots] };
}
