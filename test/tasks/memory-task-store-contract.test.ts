/** InMemoryTaskStore against the same TaskStore contract as the Redis store (issue 25), on a fake clock. */
import { InMemoryTaskStore } from 'keel-mcp/server';
import { useProcessGuard } from '../helpers/guard.js';
import { describeTaskStoreContract } from './store-contract.js';

useProcessGuard();

describeTaskStoreContract('InMemoryTaskStore', async () => {
  let now = 1_000;
  const store = new InMemoryTaskStore({ now: () => now });
  return {
    store,
    advance: async (ms: number) => {
      now += ms;
    },
    close: () => store.close(),
  };
});
