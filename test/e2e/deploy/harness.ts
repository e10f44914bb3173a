/**
 * Issue 28's deploy scenarios: three `dist/examples/soak-server.js` processes on one throwaway
 * Redis behind the round-robin proxy (no sticky sessions; a process that refuses connections is
 * skipped, as a balancer with health checks does), and 20 Keel clients calling tools without a
 * break: short calls, calls reporting progress for 3 s, calls that elicit. Every call is recorded
 * (kind, start, end, outcome); a `sessionReset` is a lost session.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { McpClient } from 'keel-mcp/client';
import { RequestTimeoutError } from 'keel-mcp/core';
import { StreamableHttpClientTransport } from 'keel-mcp/http';
import { freePort } from '../../helpers/free-port.js';
import { startRedis, type TestRedis } from '../../helpers/redis.js';
import { startRoundRobinProxy, type RoundRobinProxy } from '../../helpers/round-robin-proxy.js';
import { spawnScaleOutServer, type ScaleOutProcess } from '../support/scale-out-processes.js';

const SERVER = 'dist/examples/soak-server.js';
/** How long each kind of call needs by itself (the progress tool: 6 steps 500 ms apart). */
export const NOMINAL_MS = { short: 0, progress: 3_000, elicit: 0 } as const;
export type Kind = keyof typeof NOMINAL_MS;
/** A call that has not settled by then is hung: it fails with a timeout instead of waiting. */
export const CALL_TIMEOUT_MS = 20_000;

export interface CallRecord {
  readonly client: number;
  readonly kind: Kind;
  readonly start: number;
  end?: number;
  error?: unknown;
}

export interface Deployment {
  readonly redis: TestRedis;
  readonly proxy: RoundRobinProxy;
  readonly servers: ScaleOutProcess[];
  readonly calls: CallRecord[];
  /** `sessionReset` events: sessions the clients lost. */
  readonly resets: unknown[];
  /** Stop process `i` with `signal`, then start it again on the same port; resolves once it serves. */
  replace(i: number, signal: 'SIGTERM' | 'SIGKILL'): Promise<{ stoppedMs: number }>;
  /** Start the load: every client calls tools one after another until `stopLoad`. */
  startLoad(): void;
  /** Stop the load; resolves once every call in flight settled (each is bounded by its timeout). */
  stopLoad(): Promise<void>;
  close(): Promise<void>;
}

/**
 * What a client waited beyond what its call needs: its duration minus the kind's nominal time.
 * The longest over a scenario is its "longest pause".
 */
export function pauseOf(call: CallRecord): number {
  return (call.end ?? Date.now()) - call.start - NOMINAL_MS[call.kind];
}

export async function startDeployment(clientCount = 20): Promise<Deployment> {
  const redis = await startRedis();
  const ports = [await freePort(), await freePort(), await freePort()];
  const env = (port: number) => ({
    PORT: String(port),
    REDIS_URL: redis.url,
    KEEL_NAMESPACE: 'deploy',
    KEEL_STATE_KEY: 'deploy-test-key-0123456789abcdef',
  });
  const servers = await Promise.all(ports.map((port) => spawnScaleOutServer(env(port), SERVER)));
  const proxy = await startRoundRobinProxy(ports, { failover: true });
  const clients: McpClient[] = [];
  const calls: CallRecord[] = [];
  const resets: unknown[] = [];
  for (let i = 0; i < clientCount; i++) {
    const client = await McpClient.connect(new StreamableHttpClientTransport(proxy.url('/mcp')), {
      info: { name: `deploy-${i}`, version: '1.0.0' },
      era: 'legacy',
      elicitation: { form: () => Promise.resolve({ action: 'accept', content: { word: 'deploy' } }) },
    });
    client.on('sessionReset', (event) => resets.push(event));
    clients.push(client);
  }
  let running = false;
  let loops: Promise<void>[] = [];
  const loop = async (index: number): Promise<void> => {
    const client = clients[index]!;
    for (let turn = index; running; turn++) {
      const kind = (['short', 'progress', 'elicit'] as const)[turn % 3]!;
      const record: CallRecord = { client: index, kind, start: Date.now() };
      calls.push(record);
      try {
        const options = { timeoutMs: CALL_TIMEOUT_MS };
        const result =
          kind === 'short'
            ? await client.callTool('short', { n: turn }, options)
            : kind === 'progress'
              ? await client.callTool('progress', { steps: 6, ms: 500 }, { ...options, onprogress: () => {} })
              : await client.callTool('elicit', {}, options);
        const expected =
          kind === 'short' ? `short ${turn}` : kind === 'progress' ? 'progress 6' : 'got deploy';
        const text = (result.content as { text?: string }[] | undefined)?.[0]?.text;
        if (text !== expected)
          record.error = new Error(`answered ${JSON.stringify(text)}, expected ${expected}`);
      } catch (error) {
        record.error = error;
      }
      record.end = Date.now();
    }
  };
  return {
    redis,
    proxy,
    servers,
    calls,
    resets,
    async replace(i, signal) {
      const begin = Date.now();
      if (signal === 'SIGKILL') await servers[i]!.kill();
      else await servers[i]!.stop(30_000);
      const stoppedMs = Date.now() - begin;
      servers[i] = await spawnScaleOutServer(env(ports[i]!), SERVER);
      return { stoppedMs };
    },
    startLoad() {
      running = true;
      loops = clients.map((_, i) => loop(i));
    },
    async stopLoad() {
      running = false;
      await Promise.all(loops);
    },
    async close() {
      running = false;
      await Promise.all(loops);
      await Promise.all(clients.map((client) => client.close()));
      await proxy.close();
      await Promise.all(servers.map((server) => server.stop(5_000)));
      await redis.stop();
    },
  };
}

/** Where a scenario writes its report: a fresh directory of its own (printed with the report). */
export function reportFile(name: string): string {
  return join(mkdtempSync(join(tmpdir(), 'keel-deploy-')), `${name}.json`);
}

/** Summary of a scenario for its report: counts, failures by what the client saw, the longest pause. */
export function report(calls: readonly CallRecord[], resets: readonly unknown[]) {
  const failed = calls.filter((call) => call.error !== undefined);
  const byError = new Map<string, number>();
  for (const call of failed) {
    const error = call.error as { name?: string; code?: number; message?: string };
    const key = `${error.name ?? 'Error'}${error.code === undefined ? '' : ` ${error.code}`}: ${String(error.message).slice(0, 90)}`;
    byError.set(key, (byError.get(key) ?? 0) + 1);
  }
  const longest = calls.reduce<CallRecord | undefined>(
    (worst, call) => (worst === undefined || pauseOf(call) > pauseOf(worst) ? call : worst),
    undefined,
  );
  return {
    calls: calls.length,
    byKind: Object.fromEntries(
      (['short', 'progress', 'elicit'] as const).map((kind) => [
        kind,
        calls.filter((c) => c.kind === kind).length,
      ]),
    ),
    failed: failed.length,
    failures: Object.fromEntries(byError),
    lostSessions: resets.length,
    // A call that never settled (each is bounded by its 20 s timeout, so it settles at the latest
    // then: those are counted as `timedOut`).
    hung: calls.filter((call) => call.end === undefined).length,
    timedOut: calls.filter((call) => call.error instanceof RequestTimeoutError).length,
    longestPauseMs: longest === undefined ? 0 : pauseOf(longest),
    longestPauseKind: longest?.kind,
  };
}
