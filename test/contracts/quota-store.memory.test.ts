/** The QuotaStore contract against the in-memory store (a fake clock), and its memory bound. */
import { describe, expect, it } from 'vitest';
import { InMemoryQuotaStore } from 'keel-mcp/server';
import { useProcessGuard } from '../helpers/guard.js';
import { quotaStoreContract } from './quota-store.contract.js';

useProcessGuard();

quotaStoreContract('InMemoryQuotaStore', () => {
  let now = 1_000_000;
  const store = new InMemoryQuotaStore({ now: () => now });
  return Promise.resolve({
    store,
    unitMs: 10,
    advance: async (ms: number) => void (now += ms),
    close: async () => undefined,
  });
});

describe('InMemoryQuotaStore memory', () => {
  /** The store's own tables (private): what it holds. */
  const held = (store: InMemoryQuotaStore) => {
    const inside = store as unknown as {
      rates: Map<string, number>;
      slots: Map<string, Map<string, number>>;
    };
    return { rates: inside.rates.size, slots: inside.slots.size };
  };
  const rate = { name: 'rate', calls: 10, windowMs: 1_000 };

  it('issue 26 quotas: principals that went quiet are dropped (full bucket = nothing to remember)', async () => {
    let now = 1_000_000;
    const store = new InMemoryQuotaStore({ now: () => now });
    for (let i = 0; i < 1_000; i++) await store.admit({ principal: `old-${i}`, rates: [rate] });
    expect(held(store).rates).toBe(1_000);
    now += 1_000; // every old bucket is full again
    for (let i = 0; i < 1_100; i++) await store.admit({ principal: 'busy', rates: [rate] });
    expect(held(store).rates).toBe(1);
  });

  it('issue 26 quotas: never more than maxPrincipals entries, even when none has expired', async () => {
    const store = new InMemoryQuotaStore({ maxPrincipals: 100, now: () => 5 });
    for (let i = 0; i < 1_000; i++) {
      await store.admit({
        principal: `p${i}`,
        rates: [rate],
        slot: { holder: `h${i}`, max: 1, leaseMs: 60_000 },
      });
      const { rates, slots } = held(store);
      expect(rates + slots).toBeLessThanOrEqual(100);
    }
    // The most recent principal is still counted.
    expect(
      await store.admit({ principal: 'p999', rates: [], slot: { holder: 'x', max: 1, leaseMs: 1 } }),
    ).toEqual({
      admitted: false,
      limit: 'concurrent',
    });
  });

  it('a released slot set leaves nothing behind', async () => {
    const store = new InMemoryQuotaStore();
    await store.admit({ principal: 'a', rates: [], slot: { holder: 'h', max: 1, leaseMs: 1_000 } });
    expect(held(store).slots).toBe(1);
    await store.release('a', 'h');
    expect(held(store)).toEqual({ rates: 0, slots: 0 });
  });
});
