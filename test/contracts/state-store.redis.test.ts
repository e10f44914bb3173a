/** The StateStore contract against RedisStateStore on a real redis-server (server clock). */
import { RedisStateStore } from 'keel-mcp/redis';
import { useProcessGuard } from '../helpers/guard.js';
import { onRedis } from './redis-harness.js';
import { stateStoreContract } from './state-store.contract.js';

useProcessGuard();

onRedis(
  'RedisStateStore',
  stateStoreContract,
  (client, namespace) => new RedisStateStore({ client, namespace, commandTimeoutMs: 1_000 }),
  { prefix: 'st', unitMs: 60 },
);
