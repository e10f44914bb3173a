/**
 * The time bound on every Redis command: one timer per command, always cleared; typed errors; a
 * command that answers after its timeout is never an unhandled rejection. The relay's publish
 * (the hot path of relayed exchanges) goes through it with nothing more.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RedisRelay, type RedisRelayClient } from 'keel-mcp/redis';
import { attempt, bounded } from '../../src/adapters/redis/bounded.js';
import { StoreUnavailableError } from 'keel-mcp/core';
import { useProcessGuard } from '../helpers/guard.js';

useProcessGuard();

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  return { promise, resolve, reject };
}

/** Spies on the timer functions; `made()` = timers created, `cleared()` = those of them cleared. */
function watchTimers() {
  const set = vi.spyOn(globalThis, 'setTimeout');
  const clear = vi.spyOn(globalThis, 'clearTimeout');
  const handles = () => set.mock.results.map((result) => result.value as unknown);
  return {
    made: () => set.mock.calls.length,
    cleared: () => handles().filter((handle) => clear.mock.calls.some(([h]) => h === handle)).length,
  };
}

describe('bounded', () => {
  afterEach(() => vi.restoreAllMocks());

  it('a command that answers: its value, one timer, cleared', async () => {
    const timers = watchTimers();
    expect(await bounded('s', 'op', Promise.resolve(42), 1_000)).toBe(42);
    expect([timers.made(), timers.cleared()]).toEqual([1, 1]);
  });

  it('a command that fails: StoreUnavailableError with the cause, or mapError’s error; timer cleared', async () => {
    const timers = watchTimers();
    const cause = new Error('connection reset');
    const error = await bounded('redis x', 'get', Promise.reject(cause), 1_000).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect(error).toMatchObject({ store: 'redis x', operation: 'get', cause });
    const precise = new RangeError('precise');
    await expect(bounded('s', 'op', Promise.reject(cause), 1_000, () => precise)).rejects.toBe(precise);
    await expect(bounded('s', 'op', Promise.reject(cause), 1_000, () => undefined)).rejects.toBeInstanceOf(
      StoreUnavailableError,
    );
    expect([timers.made(), timers.cleared()]).toEqual([3, 3]);
  });

  it('no answer in time: StoreUnavailableError (timed out); a late failure goes nowhere', async () => {
    const late = deferred<number>();
    const error = await bounded('s', 'op', late.promise, 20).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect((error as Error).message).toBe('s: op failed (no answer within the command timeout)');
    late.reject(new Error('answered too late'));
    // The process guard fails the test on an unhandled rejection: give it the turn to surface.
    await new Promise((resolve) => setImmediate(resolve));
  });

  it('attempt: a synchronous throw becomes a rejection (an Error even for a non-Error)', async () => {
    const thrown = new Error('The client is closed');
    await expect(
      attempt(() => {
        throw thrown;
      }),
    ).rejects.toBe(thrown);
    await expect(
      attempt(() => {
        throw 'text'; // eslint-disable-line @typescript-eslint/only-throw-error
      }),
    ).rejects.toThrow('text');
  });
});

describe('RedisRelay publish (hot path)', () => {
  afterEach(() => vi.restoreAllMocks());

  const relayWith = (publish: RedisRelayClient['publish']) => {
    const unused = () => {
      throw new Error('not used by send/broadcast');
    };
    const client = {
      publish,
      exists: unused,
      set: unused,
      del: unused,
      duplicate: unused,
      on: unused,
      off: unused,
    };
    return new RedisRelay({ client, nodeId: 'me', namespace: 'p' });
  };

  it('send/broadcast: one timer per publish, cleared; the subscriber count decides send', async () => {
    const published: [string, string][] = [];
    const counts = [1, 0, 2];
    const relay = relayWith((channel, message) => {
      published.push([channel, message]);
      return Promise.resolve(counts.shift() ?? 0);
    });
    const timers = watchTimers();
    expect(await relay.send('a', 'one')).toBe(true);
    expect(await relay.send('b', 'two')).toBe(false);
    expect(await relay.broadcast('all')).toBeUndefined();
    expect([timers.made(), timers.cleared()]).toEqual([3, 3]);
    expect(published).toEqual([
      ['keel:p:relay:a', 'me\none'],
      ['keel:p:relay:b', 'me\ntwo'],
      ['keel:p:relay-all', 'me\nall'],
    ]);
  });

  it('a client that throws on publish (closed): StoreUnavailableError, no timer left', async () => {
    const relay = relayWith(() => {
      throw new Error('The client is closed');
    });
    const timers = watchTimers();
    await expect(relay.send('a', 'x')).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(relay.broadcast('x')).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(timers.made()).toBe(timers.cleared());
  });
});
