/** The SessionStore contract against the in-memory store (a fake clock). */
import { InMemorySessionStore } from '../../src/transports/http/server/session-store.js';
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
