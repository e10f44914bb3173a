/**
 * The contract every {@link SessionStore} keeps, run against each implementation
 * (session-store.memory.test.ts, session-store.redis.test.ts). Call `sessionStoreContract` in a
 * test file that also calls `useProcessGuard()`.
 */
import { describe, expect, it } from 'vitest';
import { StoreUnavailableError } from 'keel-mcp/core';
import type { SessionStore } from 'keel-mcp/http';
import { within } from '../helpers/guard.js';
import { harnesses, type StoreHarness } from './store-harness.js';

export type SessionStoreHarness = StoreHarness<SessionStore>;

export function sessionStoreContract(
  name: string,
  factory: () => Promise<SessionStoreHarness>,
  options: { keys?: boolean; backend?: boolean } = {},
): void {
  describe(`SessionStore contract: ${name}`, () => {
    const make = harnesses(factory);
    const HOUR = 3_600_000;

    it('create, then get returns the record; a second create of the id is refused and changes nothing', async () => {
      const { store } = await make();
      expect(await store.create({ id: 's1', clientKey: 'c1', data: '{"v":1}' }, { ttlMs: HOUR })).toBe(
        'created',
      );
      const record = await store.get('s1');
      expect(record).toMatchObject({ id: 's1', clientKey: 'c1', data: '{"v":1}' });
      expect(record!.lastSeenAt).toBe(record!.createdAt);
      expect(await store.create({ id: 's1', data: '{"v":2}' }, { ttlMs: HOUR })).toBe('exists');
      expect(await store.get('s1')).toEqual(record);
      const bare = await store.create({ id: 's2' }, { ttlMs: HOUR });
      expect(bare).toBe('created');
      const second = await store.get('s2');
      expect(second).toBeDefined();
      expect(second!.clientKey).toBeUndefined();
      expect(second!.data).toBeUndefined();
      expect(await store.get('never')).toBeUndefined();
    });

    it('of concurrent creates of one id exactly one wins; of concurrent deletes exactly one', async () => {
      const { store } = await make();
      const creates = await Promise.all(
        Array.from({ length: 8 }, (_, i) => store.create({ id: 'race', data: String(i) }, { ttlMs: HOUR })),
      );
      expect(creates.filter((result) => result === 'created')).toHaveLength(1);
      expect(creates.filter((result) => result === 'exists')).toHaveLength(7);
      const deletes = await Promise.all(Array.from({ length: 8 }, () => store.delete('race')));
      expect(deletes.filter(Boolean)).toHaveLength(1);
      expect(await store.get('race')).toBeUndefined();
      expect(await store.delete('race')).toBe(false);
    });

    it('issue 28: swap replaces data only if it is what the caller expects; of racing swaps exactly one wins', async () => {
      const { store } = await make();
      await store.create({ id: 'adopt', data: '{"owner":"a"}' }, { ttlMs: HOUR });
      expect(await store.swap('adopt', '{"owner":"x"}', '{"owner":"b"}')).toBe(false);
      expect(await store.swap('adopt', undefined, '{"owner":"b"}')).toBe(false);
      expect((await store.get('adopt'))!.data).toBe('{"owner":"a"}');
      const swaps = await Promise.all(
        Array.from({ length: 8 }, (_, i) => store.swap('adopt', '{"owner":"a"}', `{"owner":"n${i}"}`)),
      );
      expect(swaps.filter(Boolean)).toHaveLength(1);
      const winner = swaps.indexOf(true);
      expect((await store.get('adopt'))!.data).toBe(`{"owner":"n${winner}"}`);
      // A record without data swaps from `undefined`; a missing record never swaps (nor comes back).
      await store.create({ id: 'bare' }, { ttlMs: HOUR });
      expect(await store.swap('bare', undefined, 'd')).toBe(true);
      expect((await store.get('bare'))!.data).toBe('d');
      expect(await store.swap('never', undefined, 'd')).toBe(false);
      expect(await store.get('never')).toBeUndefined();
    });

    it('touch moves lastSeenAt and the expiry; an untouched record expires; touch never brings one back', async () => {
      const { store, advance, unitMs } = await make();
      const ttlMs = 4 * unitMs;
      await store.create({ id: 's1' }, { ttlMs });
      await store.create({ id: 's2' }, { ttlMs });
      const created = (await store.get('s1'))!.createdAt;
      await advance(2 * unitMs);
      expect(await store.touch('s1', ttlMs)).toBe(true);
      expect((await store.get('s1'))!.lastSeenAt).toBeGreaterThan(created);
      await advance(2.5 * unitMs); // 4.5 units after create: s2 expired, s1 touched 2.5 units ago
      expect(await store.get('s2')).toBeUndefined();
      expect(await store.touch('s2', ttlMs)).toBe(false);
      expect(await store.get('s2')).toBeUndefined();
      expect(await store.get('s1')).toBeDefined();
      await advance(5 * unitMs);
      expect(await store.get('s1')).toBeUndefined();
      expect(await store.delete('s1')).toBe(false);
      // A deleted record is not touched back either.
      await store.create({ id: 's3' }, { ttlMs });
      expect(await store.delete('s3')).toBe(true);
      expect(await store.touch('s3', ttlMs)).toBe(false);
      expect(await store.get('s3')).toBeUndefined();
    });

    it('maxPerClient counts only that client’s live sessions', async () => {
      const { store, advance, unitMs } = await make();
      const limit = { ttlMs: HOUR, maxPerClient: 2 };
      expect(await store.create({ id: 'a1', clientKey: 'A' }, limit)).toBe('created');
      expect(await store.create({ id: 'a2', clientKey: 'A' }, { ...limit, ttlMs: 2 * unitMs })).toBe(
        'created',
      );
      expect(await store.create({ id: 'a3', clientKey: 'A' }, limit)).toBe('client-limit');
      expect(await store.get('a3')).toBeUndefined();
      expect(await store.create({ id: 'b1', clientKey: 'B' }, limit)).toBe('created');
      expect(await store.create({ id: 'x1' }, limit)).toBe('created'); // no client key: no limit
      expect(await store.delete('a1')).toBe(true);
      expect(await store.create({ id: 'a3', clientKey: 'A' }, limit)).toBe('created');
      expect(await store.create({ id: 'a4', clientKey: 'A' }, limit)).toBe('client-limit');
      await advance(3 * unitMs); // a2 expired: room for one more
      expect(await store.create({ id: 'a4', clientKey: 'A' }, limit)).toBe('created');
      expect(await store.create({ id: 'a5', clientKey: 'A' }, limit)).toBe('client-limit');
    });

    if (options.keys)
      it('every key the store leaves has a TTL', async () => {
        const { store, keyTtls } = await make();
        await store.create({ id: 's1', clientKey: 'A' }, { ttlMs: HOUR, maxPerClient: 5 });
        await store.create({ id: 's2', clientKey: 'A' }, { ttlMs: HOUR });
        await store.create({ id: 's3' }, { ttlMs: HOUR });
        await store.touch('s1', HOUR);
        await store.delete('s2');
        const ttls = await keyTtls!();
        expect(ttls.size).toBeGreaterThanOrEqual(3);
        for (const [key, ttl] of ttls) {
          expect(ttl, key).toBeGreaterThan(0);
          expect(ttl, key).toBeLessThanOrEqual(HOUR);
        }
        expect([...ttls.keys()].some((key) => key.includes('{s2}'))).toBe(false);
      });

    if (options.backend)
      it('backend down: a typed error, no hang; back up: the store works again', async () => {
        const { store, backend } = await make();
        await store.create({ id: 's1' }, { ttlMs: HOUR });
        await backend!.stop();
        const attempts: (() => Promise<unknown>)[] = [
          () => store.create({ id: 's2' }, { ttlMs: HOUR }),
          () => store.get('s1'),
          () => store.touch('s1', HOUR),
          () => store.delete('s1'),
        ];
        for (const attempt of attempts) {
          const error = await within(attempt(), 10_000, 'call while down').catch((e: unknown) => e);
          expect(error).toBeInstanceOf(StoreUnavailableError);
        }
        await backend!.start();
        expect(await store.create({ id: 's2' }, { ttlMs: HOUR })).toBe('created');
        expect(await store.get('s2')).toMatchObject({ id: 's2' });
      });
  });
}
