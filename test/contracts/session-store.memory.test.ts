/** The SessionStore contract against the in-memory store (a fake clock). */
import { describe, expect, it } from 'vitest';
import { InMemorySessionStore } from 'keel-mcp/http';
import { useProcessGuard } from '../helpers/guard.js';
import { sessionStoreContract } from './session-store.contract.js';

useProcessGuard();

sessionStoreContract('InMemorySessionStore', () => {
  let now = 1_000_000;
  const store = new InMemorySessionStore({ now: () => now });
  return Promise.resolve({
    store,
    unitMs: 10,
    advance: async (ms: number) => void (now += ms),
    close: async () => undefined,
  });
});

describe('InMemorySessionStore memory', () => {
  /** The store's own tables (private): what it holds, expired or not. */
  const held = (store: InMemorySessionStore) => {
    const inside = store as unknown as { entries: Map<string, unknown>; byClient: Map<string, Set<string>> };
    return { records: inside.entries.size, clients: inside.byClient.size };
  };

  it('records that expired and are never read again are dropped by later creates', async () => {
    let now = 1_000_000;
    const store = new InMemorySessionStore({ now: () => now });
    for (let i = 0; i < 1_000; i++) await store.create({ id: `old-${i}`, clientKey: `c${i}` }, { ttlMs: 10 });
    expect(held(store)).toEqual({ records: 1_000, clients: 1_000 });
    now += 20; // every old record expired; nobody reads them again
    for (let i = 0; i < 1_000; i++) await store.create({ id: `new-${i}` }, { ttlMs: 60_000 });
    expect(held(store)).toEqual({ records: 1_000, clients: 0 });
    expect(await store.get('new-0')).toBeDefined();
  });

  it('under steady churn what it holds stays near the live count', async () => {
    let now = 1_000_000;
    const store = new InMemorySessionStore({ now: () => now });
    let most = 0;
    for (let round = 0; round < 50; round++) {
      for (let i = 0; i < 100; i++) {
        await store.create({ id: `r${round}-${i}`, clientKey: 'same' }, { ttlMs: 100 });
        most = Math.max(most, held(store).records);
      }
      now += 50; // each record lives two rounds: about 200 live at any time
    }
    expect(most).toBeLessThanOrEqual(300);
    expect(held(store).clients).toBe(1);
  });
});
