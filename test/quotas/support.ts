/**
 * Shared pieces of the quotas tests: a McpServer with a quick tool and a tool that waits on a
 * gate, clients over the memory transport in a chosen era, and a QuotaStore wrapper that records
 * what the interceptor asked of the store.
 */
import { McpClient } from 'keel-mcp/client';
import { createMemoryPair } from 'keel-mcp/memory';
import {
  InMemoryQuotaStore,
  McpServer,
  type QuotaDecision,
  type QuotaRequest,
  type QuotaStore,
} from 'keel-mcp/server';

export type Era = 'legacy' | 'modern';

/** A promise with its resolver: what the `gated` tool waits on. */
export interface Gate {
  promise: Promise<void>;
  open: () => void;
}

export function gate(): Gate {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

export interface Fixture {
  server: McpServer;
  /** How many times each tool's handler started. */
  runs: Map<string, number>;
  /** The gates `gated` calls wait on, in order; each one ignores its request's signal. */
  gates: Gate[];
  /** Set by each `gated` call: resolved once its handler has returned (late, after a cancel). */
  finished: Promise<void>[];
}

/** A server with `quick` (answers at once) and `gated` (waits for its gate, ignoring the signal). */
export function fixtureServer(): Fixture {
  const server = new McpServer({ name: 'quotas-test', version: '1.0.0' }, { onerror: undefined });
  const runs = new Map<string, number>();
  const gates: Gate[] = [];
  const finished: Promise<void>[] = [];
  const ran = (name: string) => runs.set(name, (runs.get(name) ?? 0) + 1);
  server.tool('quick', { description: 'answers at once' }, () => {
    ran('quick');
    return 'ok';
  });
  server.tool('other', { description: 'answers at once' }, () => {
    ran('other');
    return 'ok';
  });
  server.tool('gated', { description: 'waits for its gate, whatever its signal says' }, async () => {
    ran('gated');
    const g = gate();
    gates.push(g);
    const done = gate();
    finished.push(done.promise);
    await g.promise;
    done.open();
    return 'late';
  });
  return { server, runs, gates, finished };
}

/** A McpClient of `era` on its own memory connection to `server` (its own session: its own key). */
export async function connectClient(
  server: McpServer,
  era: Era,
): Promise<{ client: McpClient; close: () => Promise<void> }> {
  const [clientSide, serverSide] = createMemoryPair();
  const session = server.connect(serverSide);
  const client = new McpClient({ name: `quotas-${era}`, version: '1' }, { era });
  await client.connect(clientSide);
  return {
    client,
    close: async () => {
      await client.close();
      await session.closed;
    },
  };
}

/** A store that records every admit and release (and can be made to fail). */
export class RecordingStore implements QuotaStore {
  readonly admits: QuotaRequest[] = [];
  readonly releases: { principal: string; holder: string }[] = [];
  failing = false;
  /** While set, `admit` waits for it before asking the inner store (a slow backend). */
  stall: Promise<void> | undefined;

  constructor(readonly inner: QuotaStore = new InMemoryQuotaStore()) {}

  admit(request: QuotaRequest): Promise<QuotaDecision> {
    this.admits.push(request);
    if (this.failing) return Promise.reject(new Error('store down'));
    if (this.stall !== undefined) return this.stall.then(() => this.inner.admit(request));
    return this.inner.admit(request);
  }

  renew(principal: string, holders: readonly string[], leaseMs: number): Promise<void> {
    return this.inner.renew(principal, holders, leaseMs);
  }

  release(principal: string, holder: string): Promise<void> {
    this.releases.push({ principal, holder });
    if (this.releaseStall !== undefined)
      return this.releaseStall.then(() => this.inner.release(principal, holder));
    return this.inner.release(principal, holder);
  }

  /** While set, `release` waits for it before freeing the slot (a slow backend, another process). */
  releaseStall: Promise<void> | undefined;

  /** Each holder that was granted, with how many times it was released. */
  releaseCounts(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const { holder } of this.releases) counts.set(holder, (counts.get(holder) ?? 0) + 1);
    return counts;
  }
}

/** Let queued promise callbacks and immediate-scheduled work run (bounded: a fixed number of turns). */
export async function settle(turns = 20): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise((resolve) => setImmediate(resolve));
}
