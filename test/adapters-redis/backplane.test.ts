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
} from 'keel-mcp/redis';
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
      default: './dist/pkg/redis.js',
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
    const files = ['index', 'backplane', 'relay', 'relay-client', 'event-store', 'session-store'].map(
      (file) => join('dist/src/adapters/redis', `${file}.js`),
    );
    // And the bundle the export resolves to.
    for (const file of [...files, pkg.exports['./redis']!.default]) {
      const code = readFileSync(join(ROOT, file), 'utf8');
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
  /** Relays a test listened on: closed even when it failed half-way (close is idempotent). */
  const listening: RedisRelay[] = [];
  afterEach(async () => {
    for (const relay of listening.splice(0)) await relay.close();
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

  it('liveness: 5 × heartbeatMs by default, livenessTtlMs when given', async () => {
    connected = await connectTestClient(redis);
    const byDefault = redisBackplane({ client: connected.client, namespace: 'd', heartbeatMs: 60_000 });
    const given = redisBackplane({
      client: connected.client,
      namespace: 'g',
      heartbeatMs: 60_000,
      livenessTtlMs: 90_000,
    });
    listening.push(byDefault.relay, given.relay);
    await byDefault.relay.listen({ message() {}, broadcast() {} });
    await given.relay.listen({ message() {}, broadcast() {} });
    const ttls = await connected.keyTtls();
    const defaultTtl = ttls.get(byDefault.relay.nodeKey(byDefault.relay.nodeId))!;
    const givenTtl = ttls.get(given.relay.nodeKey(given.relay.nodeId))!;
    expect(defaultTtl).toBeGreaterThan(4 * 60_000);
    expect(defaultTtl).toBeLessThanOrEqual(5 * 60_000);
    expect(givenTtl).toBeGreaterThan(60_000);
    expect(givenTtl).toBeLessThanOrEqual(90_000);
    await byDefault.relay.close();
    await given.relay.close();
  });

  it('after a realistic sequence on two processes every key has a TTL; relay close removes its node key', async () => {
    connected = await connectTestClient(redis);
    const options = { client: connected.client, namespace: 'life', heartbeatMs: 50 } as const;
    const events = { ttlMs: 120_000, maxAgeMs: 30_000 };
    const a = redisBackplane({ ...options, events });
    const b = redisBackplane({ ...options, events });
    listening.push(a.relay, b.relay);
    const inbox: string[] = [];
    await a.relay.listen({ message: (_from, text) => void inbox.push(text), broadcast() {} });
    await b.relay.listen({ message() {}, broadcast: (_from, text) => void inbox.push(text) });
    const limit = { ttlMs: 60_000, maxPerClient: 10 };
    // Sessions: two clients, touched, one ended.
    expect(await a.sessions.create({ id: 's1', clientKey: 'ip-1', data: '{"owner":"a"}' }, limit)).toBe(
      'created',
    );
    expect(await b.sessions.create({ id: 's2', clientKey: 'ip-1' }, limit)).toBe('created');
    expect(await b.sessions.create({ id: 's3', clientKey: 'ip-2' }, limit)).toBe('created');
    expect(await b.sessions.touch('s1', 60_000)).toBe(true);
    expect(await a.sessions.delete('s2')).toBe(true);
    // Events: a live stream, a finished one, a forgotten one, a resume.
    const note = { jsonrpc: '2.0' as const, method: 'notifications/message', params: {} };
    const first = await a.events!.storeEvent('live', undefined);
    await a.events!.storeEvent('live', note);
    await b.events!.storeEvent('done', note);
    await b.events!.finishStream('done');
    await a.events!.storeEvent('gone', note);
    await a.events!.forgetStream('gone');
    expect(await b.events!.replayEventsAfter(first, () => undefined)).toBe('live');
    // Relay traffic (pub/sub leaves no keys) and a few heartbeats.
    expect(await b.relay.send(a.relay.nodeId, 'to a')).toBe(true);
    await a.relay.broadcast('to all');
    const deadline = Date.now() + 5_000;
    while (inbox.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(inbox.sort()).toEqual(['to a', 'to all']);

    const ttls = await connected.keyTtls();
    expect([...ttls.keys()].sort()).toEqual(
      [
        'keel:life:es-meta:{done}',
        'keel:life:es-meta:{live}',
        'keel:life:es:{done}',
        'keel:life:es:{live}',
        `keel:life:node:${a.relay.nodeId}`,
        `keel:life:node:${b.relay.nodeId}`,
        'keel:life:sess-client:{ip-1}',
        'keel:life:sess-client:{ip-2}',
        'keel:life:sess:{s1}',
        'keel:life:sess:{s3}',
      ].sort(),
    );
    for (const [key, ttl] of ttls) {
      expect(ttl, key).toBeGreaterThan(0);
      expect(ttl, key).toBeLessThanOrEqual(2 * events.ttlMs); // the longest: a live stream's meta
    }

    await a.relay.close();
    const afterA = await connected.keyTtls();
    expect(afterA.has(`keel:life:node:${a.relay.nodeId}`)).toBe(false);
    expect(afterA.has(`keel:life:node:${b.relay.nodeId}`)).toBe(true);
    expect(await b.relay.alive(a.relay.nodeId)).toBe(false);
    await b.relay.close();
    const left = await connected.keyTtls();
    expect([...left.keys()].filter((key) => key.includes(':node:'))).toEqual([]);
    expect([...left.values()].every((ttl) => ttl > 0)).toBe(true);
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
