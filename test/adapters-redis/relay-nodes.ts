/**
 * Several "processes" for relay tests on one throwaway redis-server: each node gets its own
 * connection (so one can be killed alone), and the subscriber connections a relay makes with
 * `duplicate()` are recorded (so a crash drops them too, and a restart waits for them).
 */
import type { RedisRelayClient } from 'keel-mcp/redis';
import { within } from '../helpers/guard.js';
import { connectTestClient, type TestRedisClient } from '../helpers/redis-client.js';
import type { TestRedis } from '../helpers/redis.js';

export interface RelayNodes {
  /** Connect one more node; returns its index. */
  add(): Promise<number>;
  /** Node `index`'s client for a relay, recording the connections it duplicates. */
  client(index: number): RedisRelayClient;
  /** Node `index`'s own connection (the one its relay publishes on). */
  connection(index: number): TestRedisClient;
  /** The subscriber connections node `index`'s relay made. */
  subscribers(index: number): TestRedisClient[];
  /** Drop node `index`'s connections at once, as a killed process would. */
  destroy(index: number): void;
  /** The raw client the test reads Redis with (not a node's). */
  readonly admin: TestRedisClient;
  keyTtls(): Promise<Map<string, number>>;
  /** Redis down; back up, resolving once every open connection (and its subscriptions) is ready. */
  backend: { stop: () => Promise<void>; start: () => Promise<void> };
  close(): Promise<void>;
}

function ready(client: TestRedisClient): Promise<void> {
  if (client.isReady || !client.isOpen) return Promise.resolve();
  return new Promise((resolve) => client.once('ready', () => resolve()));
}

export async function connectRelayNodes(redis: TestRedis): Promise<RelayNodes> {
  const base = await connectTestClient(redis);
  const clients: TestRedisClient[] = [];
  const subs: TestRedisClient[][] = [];
  const all = () => [...clients, ...subs.flat()];
  return {
    admin: base.client,
    async add() {
      const client = base.client.duplicate();
      client.on('error', (error: unknown) => base.errors.push(error));
      await client.connect();
      clients.push(client);
      subs.push([]);
      return clients.length - 1;
    },
    client(index) {
      const client = clients[index]!;
      return {
        publish: (channel, message) => client.publish(channel, message),
        exists: (keys) => client.exists(keys),
        set: (key, value, options) => client.set(key, value, options),
        del: (keys) => client.del(keys),
        duplicate: () => {
          const sub = client.duplicate();
          subs[index]!.push(sub);
          return sub;
        },
        on: (event, listener) => client.on(event, listener),
        off: (event, listener) => client.off(event, listener),
      };
    },
    connection: (index) => clients[index]!,
    subscribers: (index) => subs[index]!,
    destroy(index) {
      for (const client of [clients[index]!, ...subs[index]!]) if (client.isOpen) client.destroy();
    },
    keyTtls: () => base.keyTtls(),
    backend: {
      stop: () => base.backend.stop(),
      start: async () => {
        await base.backend.start();
        await within(Promise.all(all().map(ready)), 10_000, 'every connection ready');
      },
    },
    async close() {
      for (const client of all()) {
        if (client.isReady) await within(client.close(), 5_000, 'client close');
        else if (client.isOpen) client.destroy();
      }
      await base.close();
    },
  };
}
