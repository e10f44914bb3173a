/**
 * Issue 26 quotas across processes: real processes (test/quotas/fixtures/quota-process.mjs, from
 * the built dist) share one RedisQuotaStore on a throwaway redis-server, over 2026-07-28 HTTP on
 * 127.0.0.1 (the bearer token is the principal). A principal's calls per window and concurrent
 * calls are counted once for the deployment; a cancelled call frees its slot on every process; a
 * SIGKILLed process frees its slots within one lease; a frozen Redis neither hangs a call nor
 * blocks it (fail-open, logged once); every key has a TTL. Needs `npm run build`.
 */
import { request, type ClientRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode, type JsonObject } from 'keel-mcp/core';
import { useProcessGuard, within } from '../helpers/guard.js';
import { redisAvailable, startRedis, type TestRedis } from '../helpers/redis.js';
import { connectTestClient, type ConnectedClient } from '../helpers/redis-client.js';
import { spawnScaleOutServer, type ScaleOutProcess } from '../e2e/support/scale-out-processes.js';

useProcessGuard();

const SCRIPT = 'test/quotas/fixtures/quota-process.mjs';
const LEASE_MS = 1_500;

let redis: TestRedis | undefined;
let admin: ConnectedClient | undefined;
const procs: ScaleOutProcess[] = [];

function envOf(): Record<string, string> {
  return {
    REDIS_URL: redis!.url,
    KEEL_NAMESPACE: 'quota-procs',
    RATE_CALLS: '3',
    CONCURRENT: '1',
    LEASE_MS: String(LEASE_MS),
  };
}

interface Answer {
  status: number;
  retryAfter: string | undefined;
  body: { result?: JsonObject; error?: { code: number; message: string; data?: JsonObject } };
}

let nextId = 1;
/** One 2026-07-28 tools/call as `principal` to process `to`; `started` gets the request (to cut it). */
function call(
  to: ScaleOutProcess,
  principal: string,
  tool: string,
  started?: (req: ClientRequest) => void,
): Promise<Answer> {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: nextId++,
    method: 'tools/call',
    params: {
      name: tool,
      arguments: {},
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  });
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    authorization: `Bearer ${principal}`,
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': 'tools/call',
    'mcp-name': tool,
  };
  return new Promise((resolve, reject) => {
    const req = request(to.url, { method: 'POST', headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        try {
          const retry = res.headers['retry-after'];
          resolve({ status: res.statusCode!, retryAfter: retry, body: JSON.parse(text) as Answer['body'] });
        } catch (error) {
          reject(error instanceof Error ? error : new Error(String(error)));
        }
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
    started?.(req);
  });
}

const ask = (to: ScaleOutProcess, principal: string, tool = 'quick') =>
  within(call(to, principal, tool), 10_000, tool);

/** Ask until `done` holds (bounded: `ms`, 50 ms apart). */
async function askUntil(
  to: ScaleOutProcess,
  principal: string,
  done: (answer: Answer) => boolean,
  ms = 10_000,
): Promise<Answer> {
  const deadline = Date.now() + ms;
  let last: Answer | undefined;
  while (Date.now() < deadline) {
    last = await ask(to, principal);
    if (done(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`never got the awaited answer; last: ${JSON.stringify(last)}`);
}

const refusedBy = (answer: Answer): unknown => answer.body.error?.data?.limit;

describe.skipIf(!redisAvailable())('issue 26 quotas on several processes sharing Redis', () => {
  beforeAll(async () => {
    redis = await startRedis();
    admin = await connectTestClient(redis);
    procs.push(
      ...(await Promise.all([spawnScaleOutServer(envOf(), SCRIPT), spawnScaleOutServer(envOf(), SCRIPT)])),
    );
  }, 30_000);

  afterAll(async () => {
    await Promise.all(procs.map((proc) => proc.stop()));
    // Every key the quotas wrote has a TTL (.ci/run fails a run that leaves one without).
    const ttls = await admin!.keyTtls();
    for (const [key, ttl] of ttls) expect({ key, ttl: ttl > 0 }).toEqual({ key, ttl: true });
    await admin?.close();
    await redis?.stop();
  }, 30_000);

  it('calls per window are counted once for the deployment: the 4th call is 429 on whichever process; another principal is served', async () => {
    const [a, b] = procs as [ScaleOutProcess, ScaleOutProcess];
    for (const to of [a, b, a]) expect((await ask(to, 'rate-1')).status).toBe(200);
    const refused = await ask(b, 'rate-1');
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({ code: ErrorCode.QuotaExceeded, data: { limit: 'rate' } });
    expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
    expect((await ask(a, 'rate-1')).status).toBe(429);
    expect((await ask(b, 'rate-2')).status).toBe(200);
  });

  it('a running call holds its slot on every process; cancelling it (closing its request) frees it everywhere', async () => {
    const [a, b] = procs as [ScaleOutProcess, ScaleOutProcess];
    let held!: ClientRequest;
    const holding = call(a, 'slot-1', 'hold', (req) => (held = req)).catch((e: unknown) => e);
    await a.waitForEvent((e) => e.event === 'holding');
    const refused = await ask(b, 'slot-1');
    expect(refused.status).toBe(429);
    expect(refusedBy(refused)).toBe('concurrent');
    expect((await ask(b, 'slot-2')).status).toBe(200);
    held.destroy(); // 2026-07-28: closing a request's stream cancels it
    await holding;
    await a.waitForEvent((e) => e.event === 'released');
    expect((await askUntil(b, 'slot-1', (answer) => answer.status === 200)).status).toBe(200);
  });

  it('a SIGKILLed process frees its slots within one lease (no renewal, the lease lapses)', async () => {
    const [, b] = procs as [ScaleOutProcess, ScaleOutProcess];
    const doomed = await spawnScaleOutServer(envOf(), SCRIPT);
    try {
      const holding = call(doomed, 'dead-1', 'hold').catch((e: unknown) => e);
      await doomed.waitForEvent((e) => e.event === 'holding');
      await doomed.kill();
      await holding;
      expect(refusedBy(await ask(b, 'dead-1'))).toBe('concurrent');
      expect((await askUntil(b, 'dead-1', (answer) => answer.status === 200)).status).toBe(200);
    } finally {
      await doomed.kill();
    }
  });

  it('a frozen Redis neither hangs nor blocks calls (fail-open within the command timeout, logged once); limits apply again after', async () => {
    const [a] = procs as [ScaleOutProcess, ScaleOutProcess];
    for (let i = 0; i < 3; i++) expect((await ask(a, 'frozen-1')).status).toBe(200);
    const from = a.events.length;
    const logs = (pattern: RegExp) =>
      a.events.slice(from).filter((e) => e.event === 'quota-log' && pattern.test(String(e.message)));
    const logged = (pattern: RegExp) =>
      within(
        (async () => {
          while (logs(pattern).length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
        })(),
        5_000,
        `log ${String(pattern)}`,
      );
    redis!.freeze();
    try {
      // Over its rate, yet served: the store cannot count, and the default is fail-open.
      for (let i = 0; i < 2; i++) expect((await ask(a, 'frozen-1')).status).toBe(200);
      await logged(/quota store failed/);
    } finally {
      redis!.thaw();
    }
    await askUntil(a, 'frozen-2', (answer) => answer.status === 200);
    await logged(/answers again/);
    expect(logs(/quota store failed/)).toHaveLength(1);
    for (let i = 0; i < 3; i++) await ask(a, 'frozen-3');
    expect((await ask(a, 'frozen-3')).status).toBe(429);
  });
});
