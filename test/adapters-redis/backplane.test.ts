/**
 * `redisBackplane()`: one client and namespace shared by the relay, the session store and the
 * event store; and the `keel-mcp/redis` package entry that ships it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  RedisEventStore,
  RedisRelay,
  RedisSessionStore,
  redisBackplane,
  type RedisBackplaneClient,
} from '../../src/adapters/redis/index.js';
import { useProcessGuard } from '../helpers/guard.js';
import { connectTestClient, type ConnectedClient } from '../helpers/redis-client.js';
import { redisAvailable, startRedis, type TestRedis } from '../helpers/redis.js';

useProcessGuard();

const ROOT = join(import.meta.dirname, '..', '..');

describe('keel-mcp/redis package entry', () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    exports: Record<string, { types: string; default: string }>;
    peerDependencies?: Record<string, string>;
    peerDependenciesMeta?: Record<string, { optional?: boolean }>;
    devDependencies: Record<string, string>;
    dependencies: Record<string, string>;
  };

  it('exports ./redis from dist, with @redis/client an optional peer dependency only', () => {
    expect(pkg.exports['./redis']).toEqual({
      types: './dist/src/adapters/redis/index.d.ts',
      default: './dist/src/adapters/redis/index.js',
    });
    expect(pkg.peerDependencies?.['@redis/client']).toBe('^5 || ^6');
    expect(pkg.peerDependenciesMeta?.['@redis/client']?.optional).toBe(true);
    expect(pkg.dependencies['@redis/client']).toBeUndefined();
    // The version the tests run against is inside the peer range.
    expect(Number(pkg.devDependencies['@redis/client']!.split('.')[0])).toBeOneOf([5, 6]);
  });

  it('the built entry exports redisBackplane and never loads @redis/client itself', async () => {
    const built = join(ROOT, pkg.exports['./redis']!.default);
    expect(existsSync(built), `${built} (run npm run build)`).toBe(true);
    const entry = (await import(pathToFileURL(built).href)) as Record<string, unknown>;
    expect(typeof entry.redisBackplane).toBe('function');
    expect(typeof entry.RedisRelay).toBe('function');
    expect(existsSync(join(ROOT, pkg.exports['./redis']!.types))).toBe(true);
    // Code, not the JSDoc examples (which show users importing it).
    for (const file of ['index', 'backplane', 'relay', 'relay-client', 'event-store', 'session-store']) {
      const code = readFileSync(join(ROOT, 'dist/src/adapters/redis', `${file}.js`), 'utf8');
      expect(code, file).not.toMatch(
        /^\s*import\b[^\n]*['"](@redis\/client|redis)['"]|import\(\s*['"](@redis|redis)/m,
      );
    }
  });
});

describe.skipIf(!redisAvailable())('redisBackplane', () => {
  let redis: TestRedis;
  let connected: ConnectedClient;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis.stop();
  });
  afterEach(async () => {
    await connected.close();
  });

  it('a node-redis client fits; relay, sessions and events share its namespace', async () => {
    connected = await connectTestClient(redis);
    const client: RedisBackplaneClient = connected.client; // the type check is the point
    const backplane = redisBackplane({ client, namespace: 'weather', heartbeatMs: 100 });
    expect(backplane.relay).toBeInstanceOf(RedisRelay);
    expect(backplane.sessions).toBeInstanceOf(RedisSessionStore);
    expect(backplane.events).toBeInstanceOf(RedisEventStore);
    await backplane.relay.listen({ message() {}, broadcast() {} });
    await backplane.sessions.create({ id: 's1' }, { ttlMs: 60_000 });
    await backplane.events!.storeEvent('stream-1', undefined);
    const keys = [...(await connected.keyTtls()).keys()].sort();
    expect(keys).toEqual([
      'keel:weather:es-meta:{stream-1}',
      'keel:weather:es:{stream-1}',
      `keel:weather:node:${backplane.relay.nodeId}`,
      'keel:weather:sess:{s1}',
    ]);
    await backplane.relay.close();
  });

  it('events: false leaves the event log out; an object passes its options', async () => {
    connected = await connectTestClient(redis);
    const without = redisBackplane({ client: connected.client, events: false });
    expect(without.events).toBeUndefined();
    expect('events' in without).toBe(false);
    const bounded = redisBackplane({
      client: connected.client,
      namespace: 'b',
      events: { maxEventsPerStream: 2 },
    });
    const note = { jsonrpc: '2.0' as const, method: 'notifications/message', params: {} };
    for (let i = 0; i < 5; i++) await bounded.events!.storeEvent('s', note);
    expect(await connected.client.xLen('keel:b:es:{s}')).toBe(2);
    await without.relay.close();
    await bounded.relay.close();
  });
});
