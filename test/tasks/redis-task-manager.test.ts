/**
 * Issue 25 item b, on Redis: two task managers, each with its own RedisTaskStore and connection,
 * stand for two processes. A cancel stored by one before the other's store listens (its
 * subscriber connection not up yet, so the change message is lost to it) must still abort the
 * work on the runner, and the task ends `cancelled` once.
 */
import { createClient } from '@redis/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisTaskStore, type RedisTaskClient } from 'keel-mcp/redis';
import { TaskManager, type TaskRun } from '../../src/server/tasks/task-manager.js';
import { useProcessGuard, within } from '../helpers/guard.js';
import { redisAvailable, startRedis, type TestRedis } from '../helpers/redis.js';

useProcessGuard();

function connect(url: string) {
  const client = createClient({ url, disableOfflineQueue: true, commandOptions: { timeout: 0 } });
  client.on('error', () => undefined);
  return client;
}

describe.skipIf(!redisAvailable())('task managers on one Redis', () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis.stop();
  });

  it('issue 25 item b: a cancel stored before the runner listens still aborts the work (finally runs), cancelled once', async () => {
    const clientA = connect(redis.url);
    const clientB = connect(redis.url);
    await Promise.all([clientA.connect(), clientB.connect()]);
    // Process A's subscriber connects only when the test opens the gate.
    let open: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const gated: RedisTaskClient = {
      eval: (script, options) => clientA.eval(script, options),
      evalSha: (sha, options) => clientA.evalSha(sha, options),
      hGetAll: (key) => clientA.hGetAll(key),
      zRange: (key, min, max) => clientA.zRange(key, min, max),
      duplicate: () => {
        const subscriber = clientA.duplicate();
        subscriber.on('error', () => undefined);
        return {
          connect: async () => {
            await gate;
            return subscriber.connect();
          },
          subscribe: (channels, listener) => subscriber.subscribe(channels, listener),
          unsubscribe: (channels) => subscriber.unsubscribe(channels),
          close: () => subscriber.close(),
          destroy: () => subscriber.destroy(),
          on: (event, listener) => subscriber.on(event, listener),
          off: (event, listener) => subscriber.off(event, listener),
        };
      },
    };
    const storeA = new RedisTaskStore({ client: gated, namespace: 'managers' });
    const storeB = new RedisTaskStore({ client: clientB, namespace: 'managers' });
    const a = new TaskManager({ store: storeA });
    const b = new TaskManager({ store: storeB });
    try {
      const events: string[] = [];
      let ended: () => void = () => undefined;
      const done = new Promise<void>((resolve) => (ended = resolve));
      const record = await a.create('alice', 'tools/call', 'modern');
      a.launch(record, undefined, async (run: TaskRun) => {
        events.push('started');
        try {
          await new Promise<void>((_resolve, reject) => {
            if (run.signal.aborted) reject(run.signal.reason as Error);
            run.signal.addEventListener('abort', () => reject(run.signal.reason as Error), { once: true });
          });
          return { content: [] };
        } finally {
          events.push(`finally:${(run.signal.reason as Error | undefined)?.name ?? 'no-abort'}`);
          ended();
        }
      });
      await b.cancel(record.id, 'alice');
      expect(events).toEqual(['started']);
      open();
      await within(done, 5_000, 'the work to be aborted');
      expect(events).toEqual(['started', 'finally:TaskCancelledError']);
      expect(await storeB.get(record.id)).toMatchObject({ status: 'cancelled' });
      expect(a.runningCount).toBe(0);
    } finally {
      open();
      await a.close();
      await b.close();
      await storeA.close();
      await storeB.close();
      clientA.destroy();
      clientB.destroy();
    }
  });
});
