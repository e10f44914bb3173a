/** `McpServer`'s `state` option (issue 28): where `ctx.state` keeps its values, and its bounds. */
import type { StateStore, StateWriteOptions } from './state-store.js';

/**
 * @example
 * new McpServer(info, { state: { store: new RedisStateStore({ client }), principalTtlMs: 7 * 86_400_000 } });
 */
export interface StateOptions {
  /** Default: an {@link InMemoryStateStore} (one process). */
  store?: StateStore;
  /** A session's values live this long after its last write. Default 1 hour. */
  sessionTtlMs?: number;
  /** A principal's values live this long after their last write. Default 24 hours. */
  principalTtlMs?: number;
  /** Keys per scope. Default 100. */
  maxKeys?: number;
  /** UTF-8 bytes of keys and values per scope. Default 64 KiB. */
  maxBytes?: number;
}

/** The write bounds of each scope kind, from the options. */
export function stateBounds(options: StateOptions = {}): {
  session: StateWriteOptions;
  principal: StateWriteOptions;
} {
  const maxKeys = Math.max(1, options.maxKeys ?? 100);
  const maxBytes = Math.max(64, options.maxBytes ?? 64 * 1024);
  return {
    session: { ttlMs: Math.max(1_000, options.sessionTtlMs ?? 3_600_000), maxKeys, maxBytes },
    principal: { ttlMs: Math.max(1_000, options.principalTtlMs ?? 86_400_000), maxKeys, maxBytes },
  };
}
