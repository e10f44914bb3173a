/** The test Redis helper: a real server that answers, persists nothing, and leaves nothing behind. */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { useProcessGuard } from '../helpers/guard.js';
import { rawCommand, redisAvailable, startRedis } from '../helpers/redis.js';

useProcessGuard();

describe.skipIf(!redisAvailable())('test/helpers/redis.ts', () => {
  it('starts redis-server on 127.0.0.1 with no persistence, and stop() ends it', async () => {
    const redis = await startRedis();
    try {
      expect(redis.url).toBe(`redis://127.0.0.1:${redis.port}`);
      expect(await rawCommand(redis.port, ['PING'])).toBe('+PONG\r\n');
      expect(await rawCommand(redis.port, ['CONFIG', 'GET', 'save'])).toBe('*2\r\n$4\r\nsave\r\n$0\r\n\r\n');
      expect(await rawCommand(redis.port, ['CONFIG', 'GET', 'appendonly'])).toBe(
        '*2\r\n$10\r\nappendonly\r\n$2\r\nno\r\n',
      );
      expect(await rawCommand(redis.port, ['CONFIG', 'GET', 'bind'])).toContain('127.0.0.1');
    } finally {
      await redis.stop();
    }
    expect(await rawCommand(redis.port, ['PING'], 500)).toBeUndefined();
  });

  it('restart() keeps the port and loses the data; stop() removes the temp dir', async () => {
    const redis = await startRedis();
    const dir = (await rawCommand(redis.port, ['CONFIG', 'GET', 'dir']))!.split('\r\n')[4]!;
    expect(existsSync(dir)).toBe(true);
    expect(await rawCommand(redis.port, ['SET', 'k', 'v'])).toBe('+OK\r\n');
    await redis.restart();
    expect(await rawCommand(redis.port, ['EXISTS', 'k'])).toBe(':0\r\n');
    await redis.stop();
    expect(existsSync(dir)).toBe(false);
  });
});

describe('redisAvailable(): skip only where Redis is not required', () => {
  const missing = { REDIS_SERVER_BIN: '/nonexistent/redis-server' };

  it('is false for a missing binary on a machine that does not require Redis', () => {
    expect(redisAvailable({ ...missing })).toBe(false);
    expect(redisAvailable({ ...missing, CI: 'false' })).toBe(false);
    expect(redisAvailable({ ...missing, CI: '' })).toBe(false);
  });

  it('throws for a missing binary when CI or REDIS_URL is set, so the suite fails instead of skipping', () => {
    expect(() => redisAvailable({ ...missing, CI: 'true' })).toThrow(
      /required here \(CI or REDIS_URL is set\)/,
    );
    expect(() => redisAvailable({ ...missing, CI: '1' })).toThrow(/nonexistent\/redis-server --version/);
    expect(() => redisAvailable({ ...missing, REDIS_URL: 'redis://127.0.0.1:1' })).toThrow(/required here/);
  });

  it.skipIf(!redisAvailable())('is true when the binary runs, required or not', () => {
    expect(redisAvailable({ CI: 'true' })).toBe(true);
    expect(redisAvailable({})).toBe(true);
  });
});
