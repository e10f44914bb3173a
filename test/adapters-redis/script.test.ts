/**
 * Lua scripts go by hash (EVALSHA), with EVAL only when the server's script cache lacks one
 * (NOSCRIPT): the SHA-1 Keel computes matches the server's, the hot path sends no script text,
 * and a script that failed is never run twice.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { RedisEventStore, RedisSessionStore, type RedisScriptClient } from 'keel-mcp/redis';
import { LuaScript, sha1Hex } from '../../src/adapters/redis/script.js';
import { APPEND_SCRIPT, FINISH_SCRIPT, REPLAY_SCRIPT } from '../../src/adapters/redis/scripts.js';
import { CREATE_SESSION, DELETE_SESSION, TOUCH_SESSION } from '../../src/adapters/redis/session-scripts.js';
import { StreamEvictedError } from 'keel-mcp/http';
import { useProcessGuard } from '../helpers/guard.js';
import { connectTestClient, type ConnectedClient } from '../helpers/redis-client.js';
import { redisAvailable, startRedis, type TestRedis } from '../helpers/redis.js';

useProcessGuard();

const note = { jsonrpc: '2.0' as const, method: 'notifications/message', params: { data: 'x' } };
type Options = { keys: string[]; arguments: string[] };

/** A client that records what it was asked; `evalSha` answers from `shaReplies` in turn. */
function fakeClient(shaReplies: (() => Promise<unknown>)[]) {
  const calls: string[] = [];
  const client: RedisScriptClient = {
    eval: (script: string, options: Options) => {
      calls.push(`eval ${script.length} ${options.keys.join(',')}`);
      return Promise.resolve('from eval');
    },
    evalSha: (sha: string, options: Options) => {
      calls.push(`evalsha ${sha} ${options.keys.join(',')}`);
      return (shaReplies.shift() ?? (() => Promise.resolve('from evalsha')))();
    },
  };
  return { client, calls };
}

describe('LuaScript', () => {
  const options = { keys: ['k'], arguments: ['1'] };

  it('sha1Hex: the SHA-1 of the UTF-8 bytes, lowercase hex', async () => {
    expect(await sha1Hex('')).toBe('da39a3ee5e6b4b0d3255bfef95601890afd80709');
    expect(await sha1Hex('abc')).toBe('a9993e364706816aba3e25717850c26c9cd0d89d');
    expect(await sha1Hex('é')).toBe(await sha1Hex('\u00e9'));
  });

  it('EVALSHA; on NOSCRIPT one EVAL; after that EVALSHA again', async () => {
    const script = new LuaScript('return 1');
    const sha = await sha1Hex('return 1');
    const noScript = () => Promise.reject(new Error('NOSCRIPT No matching script. Please use EVAL.'));
    const { client, calls } = fakeClient([noScript]);
    expect(await script.run(client, options)).toBe('from eval');
    expect(await script.run(client, options)).toBe('from evalsha');
    expect(calls).toEqual([`evalsha ${sha} k`, 'eval 8 k', `evalsha ${sha} k`]);
  });

  it('any other error is the caller’s: no EVAL (the script may have run)', async () => {
    const script = new LuaScript('return 2');
    const failure = new Error('ERR Error running script: boom');
    const { client, calls } = fakeClient([() => Promise.reject(failure)]);
    await expect(script.run(client, options)).rejects.toBe(failure);
    expect(calls.filter((call) => call.startsWith('eval '))).toEqual([]);
  });

  it('a client that throws (closed) gives a rejection, not a throw', async () => {
    const script = new LuaScript('return 3');
    await script.hash();
    const client: RedisScriptClient = {
      eval: () => Promise.resolve(undefined),
      evalSha: () => {
        throw new Error('The client is closed');
      },
    };
    const run = script.run(client, options);
    await expect(run).rejects.toThrow('The client is closed');
  });

  it('without WebCrypto it still works, by EVAL', async () => {
    vi.stubGlobal('crypto', {});
    try {
      const script = new LuaScript('return 4');
      const { client, calls } = fakeClient([]);
      expect(await script.run(client, options)).toBe('from eval');
      expect(await script.hash()).toBeUndefined();
      expect(calls).toEqual(['eval 8 k']);
    } finally {
      vi.unstubAllGlobals();
    }
  });
});

describe.skipIf(!redisAvailable())('Redis scripts by hash (real server)', () => {
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

  /** Calls of EVAL and EVALSHA since the last CONFIG RESETSTAT (failed ones included). */
  const scriptCalls = async () => {
    const info = await connected.client.info('commandstats');
    const calls = (name: string) => {
      const line = info.split('\r\n').find((l) => l.startsWith(`cmdstat_${name}:`));
      const match = line ? /calls=(\d+).*failed_calls=(\d+)/.exec(line) : null;
      return { calls: Number(match?.[1] ?? 0), failed: Number(match?.[2] ?? 0) };
    };
    return { eval: calls('eval'), evalsha: calls('evalsha') };
  };

  it('Keel’s hash of every script is the one the server computes', async () => {
    connected = await connectTestClient(redis);
    const sources = [
      APPEND_SCRIPT,
      REPLAY_SCRIPT,
      FINISH_SCRIPT,
      CREATE_SESSION,
      TOUCH_SESSION,
      DELETE_SESSION,
    ];
    for (const source of sources) {
      expect(await new LuaScript(source).hash()).toBe(await connected.client.scriptLoad(source));
    }
  });

  it('the hot path sends hashes: one EVAL per script the server has not seen, then EVALSHA only', async () => {
    connected = await connectTestClient(redis);
    const { client } = connected;
    await client.scriptFlush();
    await client.configResetStat();
    const events = new RedisEventStore({ client, namespace: 'h' });
    const sessions = new RedisSessionStore({ client, namespace: 'h' });
    for (let i = 0; i < 20; i++) await events.storeEvent('s1', note); // APPEND × 20
    expect(await sessions.create({ id: 'a', clientKey: 'c' }, { ttlMs: 60_000 })).toBe('created');
    for (let i = 0; i < 10; i++) expect(await sessions.touch('a', 60_000)).toBe(true); // TOUCH × 10
    let stats = await scriptCalls();
    // 3 scripts, each seen first by EVALSHA (NOSCRIPT) then EVAL; 31 runs by hash in all.
    expect(stats.eval).toEqual({ calls: 3, failed: 0 });
    expect(stats.evalsha).toEqual({ calls: 31, failed: 3 });

    await client.scriptFlush(); // as after a restart or a failover: the cache is empty again
    await client.configResetStat();
    await events.storeEvent('s1', note);
    await events.storeEvent('s1', note);
    stats = await scriptCalls();
    expect(stats.eval).toEqual({ calls: 1, failed: 0 });
    expect(stats.evalsha).toEqual({ calls: 2, failed: 1 });
  });

  it('a script that fails on the server is not sent again by EVAL', async () => {
    connected = await connectTestClient(redis);
    const { client } = connected;
    const events = new RedisEventStore({ client, namespace: 'f' });
    await events.storeEvent('s1', note); // cached now
    await client.del(events.keysOf('s1')[0]); // the live stream is lost: APPEND answers an error
    await client.configResetStat();
    await expect(events.storeEvent('s1', note)).rejects.toBeInstanceOf(StreamEvictedError);
    const stats = await scriptCalls();
    expect(stats.eval.calls).toBe(0);
    expect(stats.evalsha).toEqual({ calls: 1, failed: 1 });
  });
});
