/**
 * The contract every {@link StateStore} keeps (issue 28: `ctx.state`), run against each
 * implementation (state-store.memory.test.ts, state-store.redis.test.ts). Call `stateStoreContract`
 * in a test file that also calls `useProcessGuard()`.
 */
import { describe, expect, it } from 'vitest';
import { StoreUnavailableError } from 'keel-mcp/core';
import type { StateStore } from 'keel-mcp/server';
import { within } from '../helpers/guard.js';
import { harnesses, type StoreHarness } from './store-harness.js';

export type StateStoreHarness = StoreHarness<StateStore>;

export function stateStoreContract(
  name: string,
  factory: () => Promise<StateStoreHarness>,
  options: { keys?: boolean; backend?: boolean } = {},
): void {
  describe(`StateStore contract: ${name}`, () => {
    const make = harnesses(factory);
    const HOUR = 3_600_000;
    const roomy = { ttlMs: HOUR, maxKeys: 10, maxBytes: 1_000 };

    it('set, get, delete; scopes are apart; a missing key is undefined', async () => {
      const { store } = await make();
      await store.set('session:a', 'cart', '["apple"]', roomy);
      await store.set('session:b', 'cart', '[]', roomy);
      expect(await store.get('session:a', 'cart')).toBe('["apple"]');
      expect(await store.get('session:b', 'cart')).toBe('[]');
      expect(await store.get('session:a', 'nothing')).toBeUndefined();
      expect(await store.delete('session:a', 'cart')).toBe(true);
      expect(await store.delete('session:a', 'cart')).toBe(false);
      expect(await store.get('session:a', 'cart')).toBeUndefined();
      await store.clear('session:b');
      expect(await store.get('session:b', 'cart')).toBeUndefined();
    });

    it('increment is atomic: 20 concurrent increments lose none; a non-integer refuses with TypeError', async () => {
      const { store } = await make();
      const sums = await Promise.all(
        Array.from({ length: 20 }, () => store.increment('principal:p', 'n', 1, roomy)),
      );
      expect(new Set(sums).size).toBe(20);
      expect(Math.max(...sums)).toBe(20);
      expect(await store.get('principal:p', 'n')).toBe('20');
      expect(await store.increment('principal:p', 'n', -25, roomy)).toBe(-5);
      await store.set('principal:p', 'word', '"x"', roomy);
      await expect(store.increment('principal:p', 'word', 1, roomy)).rejects.toBeInstanceOf(TypeError);
      expect(await store.increment('principal:p', 'big', Number.MAX_SAFE_INTEGER, roomy)).toBe(
        Number.MAX_SAFE_INTEGER,
      );
      await expect(store.increment('principal:p', 'big', 1, roomy)).rejects.toBeInstanceOf(RangeError);
    });

    it('bounds: a new key past maxKeys and a write past maxBytes are refused with RangeError; nothing is dropped', async () => {
      const { store } = await make();
      const tight = { ttlMs: HOUR, maxKeys: 2, maxBytes: 40 };
      await store.set('s', 'a', '1', tight);
      await store.set('s', 'b', '2', tight);
      await expect(store.set('s', 'c', '3', tight)).rejects.toThrow(/maxKeys/);
      await expect(store.increment('s', 'c', 1, tight)).rejects.toThrow(/maxKeys/);
      await store.set('s', 'a', '11', tight); // an existing key may change
      await expect(store.set('s', 'b', `"${'x'.repeat(60)}"`, tight)).rejects.toThrow(/maxBytes/);
      // UTF-8 bytes: 12 × 'é' is 24 bytes, with 'a', '11' and 'b' more than 40.
      await expect(store.set('s', 'b', `"${'é'.repeat(18)}"`, tight)).rejects.toBeInstanceOf(RangeError);
      expect(await store.get('s', 'a')).toBe('11');
      expect(await store.get('s', 'b')).toBe('2');
      // A delete frees room.
      await store.delete('s', 'b');
      await store.set('s', 'c', '3', tight);
      expect(await store.get('s', 'c')).toBe('3');
    });

    it('a scope expires ttlMs after its last write; each write renews it', async () => {
      const { store, advance, unitMs } = await make();
      const short = { ttlMs: 4 * unitMs, maxKeys: 10, maxBytes: 1_000 };
      await store.set('x', 'k', '1', short);
      await advance(3 * unitMs);
      await store.set('x', 'j', '2', short); // renews the whole scope
      await advance(3 * unitMs);
      expect(await store.get('x', 'k')).toBe('1');
      await advance(2 * unitMs);
      expect(await store.get('x', 'k')).toBeUndefined();
      expect(await store.get('x', 'j')).toBeUndefined();
    });

    if (options.keys) {
      it('every key the store leaves has a TTL', async () => {
        const { store, keyTtls } = await make();
        await store.set('session:t', 'a', '1', roomy);
        await store.increment('principal:t', 'n', 2, roomy);
        const ttls = await keyTtls!();
        expect(ttls.size).toBeGreaterThan(0);
        for (const [key, ttl] of ttls) expect(ttl, key).toBeGreaterThan(0);
      });
    }

    if (options.backend) {
      it('backend down: a typed error, no hang; back up: the store works again', async () => {
        const { store, backend } = await make();
        await backend!.stop();
        await expect(within(store.set('s', 'a', '1', roomy), 5_000)).rejects.toBeInstanceOf(
          StoreUnavailableError,
        );
        await expect(within(store.get('s', 'a'), 5_000)).rejects.toBeInstanceOf(StoreUnavailableError);
        await backend!.start();
        await store.set('s', 'a', '1', roomy);
        expect(await store.get('s', 'a')).toBe('1');
      });
    }
  });
}
