/**
 * Issue 25, "Several processes": real processes (test/tasks/fixtures/task-process.mjs, from the
 * built dist) share one RedisTaskStore on a throwaway redis-server, over 2026-07-28 HTTP on
 * 127.0.0.1 (no session: any request may go to any process). A task started on process A is
 * read, answered and cancelled on process B (the cancel aborts the handler on A, whose `finally`
 * runs); a SIGKILLed runner leaves its task `failed` within the lease; an expired task leaves no
 * key behind; another principal gets "not found". Needs `npm run build`.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode, type JsonObject } from 'keel-mcp/core';
import { useProcessGuard, within } from '../helpers/guard.js';
import { redisAvailable, startRedis, type TestRedis } from '../helpers/redis.js';
import { connectTestClient, type ConnectedClient } from '../helpers/redis-client.js';
import { spawnScaleOutServer, type ScaleOutProcess } from '../e2e/support/scale-out-processes.js';
import { EXT } from './support.js';

useProcessGuard();

const SCRIPT = 'test/tasks/fixtures/task-process.mjs';
const NAMESPACE = 'tasks-procs';
const LEASE_MS = 600;
const TTL_MS = 1_500;

/** The environment of one process; `ttlMs` is its tasks' retention (long but for the TTL test). */
function envOf(ttlMs = 60_000): Record<string, string> {
  return {
    REDIS_URL: redis!.url,
    KEEL_NAMESPACE: NAMESPACE,
    LEASE_MS: String(LEASE_MS),
    TTL_MS: String(ttlMs),
  };
}

let redis: TestRedis | undefined;
let admin: ConnectedClient | undefined;
const procs: ScaleOutProcess[] = [];

let nextId = 1;
/** One 2026-07-28 request as `principal` to process `to`; resolves with the JSON-RPC answer. */
async function call(
  to: ScaleOutProcess,
  principal: string,
  method: string,
  params: JsonObject,
): Promise<{ result?: JsonObject; error?: { code: number; message: string } }> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    authorization: `Bearer ${principal}`,
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': method,
  };
  const name = method === 'tools/call' ? params.name : params.taskId;
  if (typeof name === 'string') headers['mcp-name'] = name;
  const body = {
    jsonrpc: '2.0',
    id: nextId++,
    method,
    params: {
      ...params,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': { elicitation: {}, extensions: { [EXT]: {} } },
      },
    },
  };
  const text = await within(postJson(to.url, headers, JSON.stringify(body)), 10_000, method);
  return JSON.parse(text) as { result?: JsonObject; error?: { code: number; message: string } };
}

/** One POST on its own connection (no keep-alive: nothing of it outlives the call). */
function postJson(url: string, headers: Record<string, string>, body: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve(text));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function start(
  to: ScaleOutProcess,
  principal: string,
  tool: string,
  args: JsonObject,
): Promise<string> {
  const answer = await call(to, principal, 'tools/call', { name: tool, arguments: args });
  expect(answer.result).toMatchObject({ resultType: 'task', taskId: expect.any(String) });
  return answer.result!.taskId as string;
}

/** Poll `tasks/get` on `on` (bounded: `ms`, 50 ms apart) until `done` holds. */
async function pollUntil(
  on: ScaleOutProcess,
  principal: string,
  taskId: string,
  done: (task: JsonObject) => boolean,
  ms = 15_000,
): Promise<JsonObject> {
  const deadline = Date.now() + ms;
  let last: JsonObject | undefined;
  while (Date.now() < deadline) {
    last = (await call(on, principal, 'tasks/get', { taskId })).result;
    if (last && done(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`task ${taskId} never reached the awaited state; last: ${JSON.stringify(last)}`);
}

const TERMINAL = ['completed', 'failed', 'cancelled'];

describe.skipIf(!redisAvailable())('tasks on several processes sharing Redis', () => {
  beforeAll(async () => {
    redis = await startRedis();
    admin = await connectTestClient(redis);
    procs.push(
      ...(await Promise.all([spawnScaleOutServer(envOf(), SCRIPT), spawnScaleOutServer(envOf(), SCRIPT)])),
    );
  }, 30_000);

  afterAll(async () => {
    await Promise.all(procs.map((proc) => proc.stop()));
    await admin?.close();
    await redis?.stop();
  }, 30_000);

  it("get, update (answers reach the handler on the runner) and cancel from another process; the cancel runs the handler's finally, one terminal state", async () => {
    const [a, b] = procs as [ScaleOutProcess, ScaleOutProcess];
    // Answers: asked on A, answered through B.
    const askId = await start(a, 'alice', 'ask', { tag: 'ask-1' });
    const asking = await pollUntil(b, 'alice', askId, (t) => t.status === 'input_required');
    const [key] = Object.keys(asking.inputRequests as JsonObject);
    const ack = await call(b, 'alice', 'tasks/update', {
      taskId: askId,
      inputResponses: { [key!]: { action: 'accept', content: { name: 'Ada' } } },
    });
    expect(ack.result).toMatchObject({ resultType: 'complete' });
    const answered = await pollUntil(b, 'alice', askId, (t) => TERMINAL.includes(t.status as string));
    expect(answered).toMatchObject({
      status: 'completed',
      result: { content: [{ type: 'text', text: `Hello, Ada (from ${a.pid})` }] },
    });

    // Cancel: started on A, cancelled through B; A's handler is aborted and its finally runs.
    const waitId = await start(a, 'alice', 'wait', { tag: 'wait-1' });
    await a.waitForEvent((e) => e.event === 'started' && e.tag === 'wait-1', 10_000);
    expect((await call(b, 'alice', 'tasks/get', { taskId: waitId })).result).toMatchObject({
      status: 'working',
    });
    const cancelled = (await call(b, 'alice', 'tasks/cancel', { taskId: waitId })).result!;
    expect(cancelled.resultType).toBe('complete');
    expect(cancelled).not.toHaveProperty('status');
    const ended = await a.waitForEvent((e) => e.event === 'finally' && e.tag === 'wait-1', 10_000);
    expect(ended.reason).toBe('TaskCancelledError');
    const onA = (await call(a, 'alice', 'tasks/get', { taskId: waitId })).result!;
    const onB = (await call(b, 'alice', 'tasks/get', { taskId: waitId })).result!;
    expect(onA).toMatchObject({ status: 'cancelled' });
    expect(onB).toEqual(onA);
    expect(a.events.filter((e) => e.event === 'finally' && e.tag === 'wait-1')).toHaveLength(1);
    expect(b.events.filter((e) => e.tag === 'wait-1')).toEqual([]);
  }, 40_000);

  it('a second principal gets "not found" (-32602) for the first one\'s task, on another process', async () => {
    const [a, b] = procs as [ScaleOutProcess, ScaleOutProcess];
    const taskId = await start(a, 'alice', 'wait', { tag: 'wait-2' });
    for (const [method, params] of [
      ['tasks/get', { taskId }],
      ['tasks/update', { taskId, inputResponses: {} }],
      ['tasks/cancel', { taskId }],
    ] as const) {
      const refused = await call(b, 'bob', method, params);
      expect(refused.error).toMatchObject({ code: ErrorCode.InvalidParams });
      expect(refused.error!.message).toMatch(/Task not found/);
    }
    expect((await call(b, 'alice', 'tasks/get', { taskId })).result).toMatchObject({ status: 'working' });
    await call(b, 'alice', 'tasks/cancel', { taskId });
    await a.waitForEvent((e) => e.event === 'finally' && e.tag === 'wait-2', 10_000);
  }, 40_000);

  it('SIGKILL of the process running a task: another process reports failed ("The process running this task stopped") within the lease', async () => {
    const doomed = await spawnScaleOutServer(envOf(), SCRIPT);
    try {
      const b = procs[1]!;
      const taskId = await start(doomed, 'alice', 'wait', { tag: 'wait-3' });
      await doomed.waitForEvent((e) => e.event === 'started' && e.tag === 'wait-3', 10_000);
      await doomed.kill();
      // The bound is leaseMs after the kill; the wait here is generous (no speed assumption).
      const failed = await pollUntil(b, 'alice', taskId, (t) => t.status !== 'working', 15_000);
      expect(failed).toMatchObject({
        status: 'failed',
        statusMessage: 'The process running this task stopped',
        error: { code: ErrorCode.InternalError, message: 'The process running this task stopped' },
      });
      expect(doomed.events.filter((e) => e.event === 'finally')).toEqual([]);
      // Terminal: every process reports the same, from now on.
      expect((await call(procs[0]!, 'alice', 'tasks/get', { taskId })).result).toEqual(
        (await call(b, 'alice', 'tasks/get', { taskId })).result,
      );
    } finally {
      await doomed.kill();
    }
  }, 40_000);

  it('TTL expiry removes the task and every Redis key of it; no key is left without a TTL', async () => {
    const a = await spawnScaleOutServer(envOf(TTL_MS), SCRIPT);
    try {
      const b = procs[1]!;
      const client = admin!.client;
      const taskId = await start(a, 'carol', 'quick', {});
      const done = await pollUntil(b, 'carol', taskId, (t) => t.status === 'completed');
      expect(done.ttlMs).toBe(TTL_MS);
      const hash = `keel:${NAMESPACE}:task:{${taskId}}`;
      const owners = await client.keys(`keel:${NAMESPACE}:task-owner:*carol*`);
      expect(owners).toHaveLength(1);
      const mine = [hash, owners[0]!];
      expect(await client.exists(mine)).toBe(2);
      for (const [key, ttl] of await admin!.keyTtls())
        expect({ key, ttl: ttl > 0 }).toEqual({ key, ttl: true });
      // Gone after its TTL (bounded wait: Redis expires keys on its own clock).
      for (let i = 0; i < 200 && (await client.exists(mine)) > 0; i += 1)
        await new Promise((resolve) => setTimeout(resolve, 50));
      expect(await client.exists(mine)).toBe(0);
      const gone = await call(b, 'carol', 'tasks/get', { taskId });
      expect(gone.error).toMatchObject({ code: ErrorCode.InvalidParams });
      // The total index drops it with the next write (or goes itself with its last member).
      await start(a, 'dave', 'quick', {});
      expect(await client.zScore(`keel:${NAMESPACE}:task-all`, taskId)).toBeNull();
      for (const key of await client.keys(`keel:${NAMESPACE}:*`)) expect(key).not.toContain(taskId);
      for (const [key, ttl] of await admin!.keyTtls())
        expect({ key, ttl: ttl > 0 }).toEqual({ key, ttl: true });
    } finally {
      await a.stop();
    }
  }, 40_000);
});
