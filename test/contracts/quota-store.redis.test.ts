/** The QuotaStore contract against RedisQuotaStore on a real redis-server (server clock). */
import { RedisQuotaStore } from 'keel-mcp/redis';
import { useProcessGuard } from '../helpers/guard.js';
import { onRedis } from './redis-harness.js';
import { quotaStoreContract } from './quota-store.contract.js';

useProcessGuard();

onRedis(
  'RedisQuotaStore',
  quotaStoreContract,
  (client, namespace) => new RedisQuotaStore({ client, namespace, commandTimeoutMs: 1_000 }),
  { prefix: 'q', unitMs: 60 },
);
