/** RedisTaskStore against the TaskStore contract, on a throwaway redis-server (issue 25). */
import { createClient } from '@redis/client';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { RedisTaskStore } from 'keel-mcp/redis';
import { useProcessGuard } from '../helpers/guard.js';
import { redisAvailable, startRedis, type TestRedis } from '../helpers/redis.js';
import { describeTaskStoreContract, newTask } from './store-contract.js';
import { describe } from 'vitest';

useProcessGuard();

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe.skipIf(!redisAvailable())('RedisTaskStore', () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis.stop();
  });
  let run = 0;

  it("issue 25 item h: times come from the Redis server's clock (TIME), not the calling process's", async () => {
    const client = createClient({
      url: redis.url,
      disableOfflineQueue: true,
      commandOptions: { timeout: 0 },
    });
    client.on('error', () => undefined);
    await client.connect();
    const store = new RedisTaskStore({ client, namespace: 'clock' });
    try {
      const [seconds] = await client.sendCommand<string[]>(['TIME']);
      const redisNow = Number(seconds) * 1_000;
      // This process's clock is a day behind; the record must not see it.
      const skewed = vi.spyOn(Date, 'now').mockImplementation(() => redisNow - 86_400_000);
      let made;
      try {
        made = await store.create(newTask({ runner: 'r', leaseMs: 5_000 }), {
          maxPerOwner: 10,
          maxTotal: 10,
        });
      } finally {
        skewed.mockRestore();
      }
      if (typeof made === 'string') throw new Error(made);
      expect(Math.abs(made.createdAt - redisNow)).toBeLessThan(60_000);
      expect(made.leaseUntil).toBe(made.createdAt + 5_000);
      await store.delete(made.id);
    } finally {
      await store.close();
      client.destroy();
    }
  });

  describeTaskStoreContract('RedisTaskStore', async () => {
    run += 1;
    const namespace = `tasks-${run}`;
    const connect = () =>
      createClient({
        url: redis.url,
        disableOfflineQueue: true,
        commandOptions: { timeout: 0 },
      });
    const clients: ReturnType<typeof connect>[] = [];
    const open = async () => {
      const client = connect();
      client.on('error', () => undefined);
      await client.connect();
      clients.push(client);
      return new RedisTaskStore({ client, namespace });
    };
    const store = await open();
    return {
      store,
      advance: sleep,
      peer: open,
      keys: async () => {
        const client = clients[0]!;
        const found: string[] = [];
        for await (const batch of client.scanIterator({ MATCH: `keel:${namespace}:*` }))
          found.push(...(Array.isArray(batch) ? batch : [batch]));
        return found;
      },
      close: async () => {
        await store.close();
        const client = clients[0]!;
        for await (const batch of client.scanIterator({ MATCH: `keel:${namespace}:*` })) {
          const keys = Array.isArray(batch) ? batch : [batch];
          if (keys.length > 0) await client.del(keys);
        }
        for (const c of clients) c.destroy();
      },
    };
  });
});
