/** The SessionStore contract against RedisSessionStore on a real redis-server (server clock). */
import { RedisSessionStore } from 'keel-mcp/redis';
import { useProcessGuard } from '../helpers/guard.js';
import { onRedis } from './redis-harness.js';
import { sessionStoreContract } from './session-store.contract.js';

useProcessGuard();

// A unit big enough that a busy machine does not eat the margins (1.5 units).
onRedis(
  'RedisSessionStore',
  sessionStoreContract,
  (client, namespace) => new RedisSessionStore({ client, namespace, commandTimeoutMs: 1_000 }),
  { prefix: 's', unitMs: 500 },
);
