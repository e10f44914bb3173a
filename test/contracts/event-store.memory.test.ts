/** The EventStore contract against the default in-memory store (a fake clock for the age bound). */
import { InMemoryEventStore } from 'keel-mcp/http';
import { useProcessGuard } from '../helpers/guard.js';
import { eventStoreContract } from './event-store.contract.js';

useProcessGuard();

eventStoreContract('InMemoryEventStore', (bounds) => {
  let now = 1_000_000;
  const store = new InMemoryEventStore({
    maxEventsPerStream: bounds.maxEventsPerStream,
    maxBytes: bounds.maxBytes,
    maxAgeMs: bounds.maxAgeMs,
    maxStreams: bounds.maxStreams,
    now: () => now,
  });
  let fillers = 0;
  return Promise.resolve({
    store,
    // With maxStreams 1, a new stream makes room by evicting the oldest live one.
    loseLiveStream: async () => void store.storeEvent(`filler:${++fillers}`, undefined),
    advance: async (ms: number) => void (now += ms),
    close: async () => undefined,
  });
});
