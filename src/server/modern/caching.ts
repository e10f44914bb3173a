/**
 * Caching hints (`ttlMs`, `cacheScope`) of the cacheable modern results: `server/discover`, the
 * four lists and `resources/read`. Never on `input_required` results.
 */
import type { JsonObject } from '../../core/jsonrpc.js';
import type { CacheHint, CacheScope } from '../../core/types/modern.js';

/**
 * Where caching hints come from. Each entry overrides `default` field by field; `read` may be a
 * function of the URI (per resource; `undefined` = the default).
 *
 * Keel's own default is `{ ttlMs: 0, cacheScope: 'private' }`: always correct (the client re-fetches
 * and nothing is shared between users) until you say a result may live longer or be shared.
 *
 * @example
 * new McpServer(info, {
 *   caching: {
 *     default: { ttlMs: 60_000, cacheScope: 'public' },
 *     read: (uri) => (uri.startsWith('user://') ? { cacheScope: 'private', ttlMs: 0 } : undefined),
 *   },
 * });
 */
export interface CachingOptions {
  default?: Partial<CacheHint>;
  discover?: Partial<CacheHint>;
  tools?: Partial<CacheHint>;
  prompts?: Partial<CacheHint>;
  resources?: Partial<CacheHint>;
  resourceTemplates?: Partial<CacheHint>;
  read?: Partial<CacheHint> | ((uri: string) => Partial<CacheHint> | undefined);
}

const KEEL_DEFAULT: CacheHint = { ttlMs: 0, cacheScope: 'private' };

const LIST_KEYS = new Map<string, keyof CachingOptions>([
  ['server/discover', 'discover'],
  ['tools/list', 'tools'],
  ['prompts/list', 'prompts'],
  ['resources/list', 'resources'],
  ['resources/templates/list', 'resourceTemplates'],
]);

function checkHint(hint: Partial<CacheHint> | undefined, where: string): void {
  if (hint === undefined) return;
  const { ttlMs, cacheScope } = hint;
  if (ttlMs !== undefined && !(Number.isSafeInteger(ttlMs) && ttlMs >= 0)) {
    throw new RangeError(`caching.${where}.ttlMs must be an integer >= 0, got ${String(ttlMs)}`);
  }
  if (cacheScope !== undefined && cacheScope !== 'public' && cacheScope !== 'private') {
    throw new RangeError(
      `caching.${where}.cacheScope must be "public" or "private", got ${String(cacheScope)}`,
    );
  }
}

/**
 * The resolved hints of one server. Options are checked once, at construction (a bad value throws
 * there, not on a client's request).
 *
 * @example
 * const hints = new CacheHints({ tools: { ttlMs: 300_000, cacheScope: 'public' } });
 * hints.for('tools/list', {}); // { ttlMs: 300000, cacheScope: 'public' }
 */
export class CacheHints {
  private readonly base: CacheHint;
  private readonly fixed = new Map<string, CacheHint>();
  /**
   * @internal Set by `McpServer`: true when the result of `method` depends on the caller
   * (per-caller views: an item of that list has a `visibleTo` rule). Such a result is
   * `cacheScope: "private"` whatever the options say: a shared cache must never hand one
   * caller's view to another.
   */
  callerDependent: ((method: string) => boolean) | undefined = undefined;

  constructor(private readonly options: CachingOptions = {}) {
    checkHint(options.default, 'default');
    this.base = { ...KEEL_DEFAULT, ...options.default };
    for (const [method, key] of LIST_KEYS) {
      const hint = options[key] as Partial<CacheHint> | undefined;
      checkHint(hint, key);
      this.fixed.set(method, { ...this.base, ...hint });
    }
    if (typeof options.read !== 'function') {
      checkHint(options.read, 'read');
      this.fixed.set('resources/read', { ...this.base, ...options.read });
    }
  }

  /** The hint for a result of `method`, or undefined when that method's results are not cacheable. */
  for(method: string, params: JsonObject): CacheHint | undefined {
    const hint = this.configured(method, params);
    if (hint === undefined || hint.cacheScope === 'private' || this.callerDependent?.(method) !== true)
      return hint;
    return { ttlMs: hint.ttlMs, cacheScope: 'private' };
  }

  private configured(method: string, params: JsonObject): CacheHint | undefined {
    const read = this.options.read;
    if (method === 'resources/read' && typeof read === 'function') {
      const hint = read(String(params.uri));
      checkHint(hint, `read("${String(params.uri)}")`);
      return { ...this.base, ...hint };
    }
    return this.fixed.get(method);
  }
}

export type { CacheHint, CacheScope };
