/** The Relay contract against RedisRelay on a throwaway redis-server (test/helpers/redis.ts). */
import { describe } from 'vitest';
import { RedisRelay } from 'keel-mcp/redis';
import type { Relay } from 'keel-mcp/http';
import { useProcessGuard } from '../helpers/guard.js';
import { connectRelayNodes } from '../adapters-redis/relay-nodes.js';
import { redisAvailable } from '../helpers/redis.js';
import { useTestRedis } from './redis-harness.js';
import { relayContract } from './relay.contract.js';

useProcessGuard();

describe.skipIf(!redisAvailable())('RedisRelay', () => {
  const redis = useTestRedis('r');

  relayContract(
    'RedisRelay',
    async () => {
      const nodes = await connectRelayNodes(redis.server());
      const namespace = redis.namespace();
      const relays = new Map<Relay, number>();
      const heartbeatMs = 100;
      return {
        node: async () => {
          const index = await nodes.add();
          const relay = new RedisRelay({
            client: nodes.client(index),
            namespace,
            heartbeatMs,
            commandTimeoutMs: 500,
          });
          relays.set(relay, index);
          return relay;
        },
        crash: (relay) => Promise.resolve(nodes.destroy(relays.get(relay)!)),
        livenessMs: 5 * heartbeatMs, // the default window (ttlMs not set)
        medium: { down: () => nodes.backend.stop(), up: () => nodes.backend.start() },
        freeze: { freeze: () => redis.server().freeze(), thaw: () => redis.server().thaw() },
        keys: async () => [...(await nodes.keyTtls()).keys()],
        close: () => nodes.close(),
      };
    },
    { interrupts: true, freeze: true, keys: true },
  );
});
