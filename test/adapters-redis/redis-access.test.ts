/**
 * Issue 24 point 6: the relay, the session store and the event store set up their client, key
 * prefix and command bound in one place (`RedisAccess`), and read the bound the same way: 2 s by
 * default, at least 1 ms, each failing with a StoreUnavailableError that names the adapter.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RedisEventStore, RedisRelay, RedisSessionStore, type RedisBackplaneClient } from 'keel-mcp/redis';
import { atLeast } from '../../src/adapters/redis/redis-access.js';
import { StoreUnavailableError } from 'keel-mcp/core';
import { useProcessGuard } from '../helpers/guard.js';

useProcessGuard();

// Every command is sent and never answered.
const silent = new Proxy({} as RedisBackplaneClient, {
  get: () => () => new Promise<never>(() => undefined),
});

const adapters = {
  'redis relay': (commandTimeoutMs?: number) =>
    new RedisRelay({ client: silent, commandTimeoutMs }).alive('other'),
  'redis session store': (commandTimeoutMs?: number) =>
    new RedisSessionStore({ client: silent, commandTimeoutMs }).get('s'),
  'redis event store': (commandTimeoutMs?: number) =>
    new RedisEventStore({ client: silent, commandTimeoutMs }).forgetStream('s'),
};

describe('RedisAccess: one command bound for every adapter', () => {
  afterEach(() => void vi.useRealTimers());

  it.each(Object.entries(adapters))('%s: 2,000 ms by default, at least 1 ms', async (store, call) => {
    vi.useFakeTimers();
    for (const [given, bound] of [
      [undefined, 2_000],
      [0, 1],
      [250, 250],
    ] as const) {
      const outcome = call(given).catch((error: unknown) => error);
      let settled = false;
      void outcome.then(() => (settled = true));
      await vi.advanceTimersByTimeAsync(bound - 1);
      expect(settled, `${store} ${String(given)}: still waiting before ${bound} ms`).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      const error = await outcome;
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect((error as StoreUnavailableError).store).toBe(store);
      expect((error as Error).message).toContain('no answer within the command timeout');
    }
  });

  it('atLeast: whole, at least min (default 1), fallback when not given', () => {
    expect(atLeast(undefined, 100)).toBe(100);
    expect(atLeast(2.9, 100)).toBe(2);
    expect(atLeast(0, 100)).toBe(1);
    expect(atLeast(-5, 100)).toBe(1);
    expect(atLeast(10, 100, 50)).toBe(50);
    expect(atLeast(undefined, 5_000, 1_001)).toBe(5_000);
  });
});
