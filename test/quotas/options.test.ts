/**
 * Issue 26 quotas: what the options decide. Whom a call counts for (`key`), which methods count,
 * running tasks (`tasks.maxPerOwner`, counted once by the task store, refused in the quota
 * shape), a failing store (fail-open by default, fail-closed on request, logged once per outage),
 * and bad options (a clear RangeError at construction).
 */
import { afterEach, describe, expect, test } from 'vitest';
import { ErrorCode, McpError } from 'keel-mcp/core';
import { McpServer, quotas, type QuotaOptions } from 'keel-mcp/server';
import { useProcessGuard } from '../helpers/guard.js';
import { callTask, connectRaw, tasks, type Raw } from '../tasks/support.js';
import { connectClient, fixtureServer, RecordingStore } from './support.js';

useProcessGuard();

const open: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of open.splice(0).reverse()) await close();
});

async function connect(server: McpServer) {
  const connected = await connectClient(server, 'legacy');
  open.push(connected.close);
  return connected.client;
}

const once = { calls: 1, windowMs: 60_000 };

describe('issue 26 quotas: whom a call counts for', () => {
  test('key() can put two sessions under one principal: they share one window', async () => {
    const { server } = fixtureServer();
    server.use(quotas({ limits: { rate: once }, key: () => 'team-1' }));
    const a = await connect(server);
    const b = await connect(server);
    await a.callTool('quick');
    await expect(b.callTool('quick')).rejects.toMatchObject({ code: ErrorCode.QuotaExceeded });
  });

  test('key() returning undefined leaves the call unlimited', async () => {
    const { server, runs } = fixtureServer();
    server.use(
      quotas({ limits: { rate: once }, key: (call) => (call.params.name === 'other' ? undefined : 'x') }),
    );
    const a = await connect(server);
    for (let i = 0; i < 3; i++) await a.callTool('other');
    expect(runs.get('other')).toBe(3);
  });

  test('per-tool rates only: calls of other tools never reach the store', async () => {
    const { server } = fixtureServer();
    const store = new RecordingStore();
    server.use(quotas({ store, limits: { tools: { quick: once } } }));
    const a = await connect(server);
    await a.callTool('other');
    await a.callTool('other');
    expect(store.admits).toHaveLength(0);
    await a.callTool('quick');
    await expect(a.callTool('quick')).rejects.toMatchObject({ data: { limit: 'tool:quick' } });
    expect(store.admits).toHaveLength(2);
  });

  test('methods: only the named methods count; tools/call is then free', async () => {
    const { server } = fixtureServer();
    server.use(quotas({ limits: { rate: once }, methods: ['tools/list'] }));
    const a = await connect(server);
    await a.listTools();
    await expect(a.listTools()).rejects.toMatchObject({
      code: ErrorCode.QuotaExceeded,
      data: { limit: 'rate' },
    });
    await a.callTool('quick');
    await a.callTool('quick');
  });
});

describe('issue 26 quotas: running tasks', () => {
  function taskServer(): McpServer {
    const server = new McpServer(
      { name: 'quota-tasks', version: '1' },
      { onerror: undefined, tasks: { maxPerOwner: 1 } },
    );
    server.tool(
      'wait',
      { description: 'waits for its cancel', execution: { taskSupport: 'required' } },
      (_args, ctx) =>
        new Promise((_resolve, reject) =>
          ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason as Error), { once: true }),
        ),
    );
    server.use(quotas({ limits: { rate: { calls: 100, windowMs: 60_000 } } }));
    open.push(() => server.close());
    return server;
  }
  const raw = (server: McpServer): Raw => {
    const connected = connectRaw(server);
    open.push(() => connected.close());
    return connected;
  };

  test('tasks.maxPerOwner is the one count; past it the refusal is the quota error (limit tasks); the caller still polls and cancels', async () => {
    const client = raw(taskServer());
    const made = await callTask(client, 'wait');
    const taskId = made.taskId as string;
    expect(typeof taskId).toBe('string');
    const error = await callTask(client, 'wait').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect(error).toMatchObject({
      code: ErrorCode.QuotaExceeded,
      data: { limit: 'tasks', retryAfterMs: 1_000 },
    });
    expect((error as McpError).message).toMatch(/tasks\.maxPerOwner/);
    expect(await tasks(client, 'tasks/get', { taskId })).toMatchObject({ taskId, status: 'working' });
    await tasks(client, 'tasks/cancel', { taskId });
    const again = (await callTask(client, 'wait')).taskId;
    expect(typeof again === 'string' && again !== taskId).toBe(true);
    await tasks(client, 'tasks/cancel', { taskId: again });
  });
});

describe('issue 26 quotas: a failing store', () => {
  test('fail-open by default: calls are served, the outage is logged once, and its end once', async () => {
    const { server, runs } = fixtureServer();
    const store = new RecordingStore();
    const logged: string[] = [];
    server.use(
      quotas({ store, limits: { rate: once, concurrent: 1 }, logger: { error: (m) => logged.push(m) } }),
    );
    const a = await connect(server);
    store.failing = true;
    for (let i = 0; i < 3; i++) await a.callTool('quick');
    expect(runs.get('quick')).toBe(3);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatch(/quota store failed \(admit\); counted calls are served without limits/);
    expect(store.releases).toHaveLength(0); // no slot was granted, none is released
    store.failing = false;
    await a.callTool('quick');
    expect(logged).toHaveLength(2);
    expect(logged[1]).toMatch(/answers again/);
  });

  test("whenStoreFails: 'refuse' answers -32010 with a retry hint and never runs the handler", async () => {
    const { server, runs } = fixtureServer();
    const store = new RecordingStore();
    store.failing = true;
    const logged: string[] = [];
    server.use(
      quotas({
        store,
        limits: { rate: once },
        whenStoreFails: 'refuse',
        logger: { error: (m) => logged.push(m) },
      }),
    );
    const a = await connect(server);
    await expect(a.callTool('quick')).rejects.toMatchObject({
      code: ErrorCode.ServerBusy,
      data: { limit: 'store', retryAfterMs: 1_000 },
    });
    expect(runs.get('quick')).toBeUndefined();
    expect(logged[0]).toMatch(/counted calls are refused/);
  });
});

describe('issue 26 quotas: bad options are a RangeError at construction', () => {
  const cases: [string, QuotaOptions, RegExp][] = [
    ['no limit', { limits: {} }, /at least one of rate, tools, concurrent/],
    [
      'a zero rate',
      { limits: { rate: { calls: 0, windowMs: 1_000 } } },
      /limits\.rate\.calls must be a positive integer/,
    ],
    ['a fractional window', { limits: { rate: { calls: 1, windowMs: 1.5 } } }, /limits\.rate\.windowMs/],
    [
      'a bad tool rate',
      { limits: { tools: { x: { calls: 1, windowMs: -1 } } } },
      /limits\.tools\.x\.windowMs/,
    ],
    ['concurrent 0', { limits: { concurrent: 0 } }, /limits\.concurrent/],
    [
      'tasks/get counted',
      { limits: { concurrent: 1 }, methods: ['tasks/get'] },
      /tasks\/get is never counted/,
    ],
    [
      'initialize counted',
      { limits: { concurrent: 1 }, methods: ['initialize'] },
      /initialize is never counted/,
    ],
    [
      'a notification counted',
      { limits: { concurrent: 1 }, methods: ['notifications/cancelled'] },
      /never counted/,
    ],
    ['leaseMs 0', { limits: { concurrent: 1 }, leaseMs: 0 }, /leaseMs/],
    [
      'an unknown failure mode',
      { limits: { concurrent: 1 }, whenStoreFails: 'maybe' as 'allow' },
      /whenStoreFails must be 'allow' or 'refuse'/,
    ],
  ];
  test.each(cases)('%s', (_name, options, message) => {
    expect(() => quotas(options)).toThrow(RangeError);
    expect(() => quotas(options)).toThrow(message);
  });
});
