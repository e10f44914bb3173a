/**
 * `keel-mcp/redis`: shared state on Redis, so several Keel processes behind a load balancer can
 * serve the same sessions. Start with {@link redisBackplane}.
 */
export { redisBackplane } from './backplane.js';
export type { RedisBackplaneClient, RedisBackplaneOptions } from './backplane.js';
export { RedisRelay } from './relay.js';
export type { RedisRelayOptions } from './relay.js';
export type { RedisRelayClient, RedisRelaySubscriber } from './relay-client.js';
export { RedisEventStore } from './event-store.js';
export type { RedisEventStoreClient, RedisEventStoreOptions } from './event-store.js';
export type { RedisScriptClient } from './script.js';
export { RedisSessionStore } from './session-store.js';
export type { RedisSessionClient, RedisSessionStoreOptions } from './session-store.js';
export { RedisTaskStore } from './task-store.js';
export type { RedisTaskClient, RedisTaskStoreOptions } from './task-store.js';
export { RedisQuotaStore } from './quota-store.js';
export type { RedisQuotaStoreOptions } from './quota-store.js';
export { RedisStateStore } from './state-store.js';
export type { RedisStateClient, RedisStateStoreOptions } from './state-store.js';
