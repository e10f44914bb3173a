/** The StateStore contract against InMemoryStateStore (fake clock), plus its scope bound. */
import { expect, it } from 'vitest';
import { InMemoryStateStore } from 'keel-mcp/server';
import { useProcessGuard } from '../helpers/guard.js';
import { stateStoreContract } from './state-store.contract.js';

useProcessGuard();

stateStoreContract('InMemoryStateStore', () => {
  let now = 0;
  return Promise.resolve({
    store: new InMemoryStateStore({ now: () => now }),
    unitMs: 1_000,
    advance: (ms: number) => {
      now += ms;
      return Promise.resolve();
    },
    close: () => Promise.resolve(),
  });
});

it('issue 28: the in-memory store holds at most maxScopes live scopes; expired ones make room', async () => {
  let now = 0;
  const store = new InMemoryStateStore({ maxScopes: 2, now: () => now });
  const bounds = { ttlMs: 1_000, maxKeys: 5, maxBytes: 100 };
  await store.set('a', 'k', '1', bounds);
  await store.set('b', 'k', '1', bounds);
  await expect(store.set('c', 'k', '1', bounds)).rejects.toThrow(/maxScopes/);
  await store.set('a', 'j', '2', bounds); // an existing scope still takes writes
  now += 2_000;
  await store.set('c', 'k', '1', bounds);
  expect(await store.get('c', 'k')).toBe('1');
});
