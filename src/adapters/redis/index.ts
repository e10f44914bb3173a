/**
 * `keel-mcp/redis` (work in progress): shared state on Redis, so several Keel processes can serve
 * the same sessions.
 */
export { RedisEventStore } from './event-store.js';
export type { RedisEventStoreOptions, RedisScriptClient } from './event-store.js';
export { RedisSessionStore } from './session-store.js';
export type { RedisSessionClient, RedisSessionStoreOptions } from './session-store.js';
