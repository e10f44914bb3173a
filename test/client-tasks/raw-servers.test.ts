/**
 * Issue 25, client: McpClient's task loop against hand-written servers (both eras), for what a
 * real server rarely does: the poll interval it asks for is honoured (fake timers, no timing
 * asserts) and bounded below; a status notification polls at once; bad answers (a task without
 * taskId, an unknown status) are a clear ProtocolViolationError, never a hang.
 */
import { afterEach, expect, test, vi } from 'vitest';
import {
  McpClient,
  ProtocolViolationError,
  TasksNotSupportedError,
  type McpClientOptions,
} from 'keel-mcp/client';
import {
  Connection,
  ConnectionClosedError,
  ErrorCode,
  McpError,
  RequestTimeoutError,
  type JsonObject,
  type RequestHandler,
} from 'keel-mcp/core';
import { useProcessGuard, within } from '../helpers/guard.js';
import { createRecordingPair } from '../helpers/recording-transport.js';

useProcessGuard();

const EXT = 'io.modelcontextprotocol/tasks';
const NOW = '2026-01-01T00:00:00.000Z';
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const cleanup of cleanups.splice(0).reverse()) await within(cleanup(), 5_000, 'cleanup');
});

interface RawServer {
  client: McpClient;
  server: Connection;
  count: (method: string) => number;
}

/** A bare server connection with `handlers`, and a connected McpClient of the given era. */
async function rawServer(
  era: 'legacy' | 'modern',
  handlers: Record<string, RequestHandler>,
  options: McpClientOptions = {},
): Promise<RawServer> {
  const [clientSide, serverSide] = createRecordingPair();
  const server = new Connection(serverSide);
  const seen: string[] = [];
  const base: Record<string, RequestHandler> =
    era === 'legacy'
      ? {
          initialize: () => ({
            protocolVersion: '2025-11-25',
            capabilities: { tools: {}, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } },
            serverInfo: { name: 'raw-legacy', version: '1' },
          }),
        }
      : {
          'server/discover': () => ({
            resultType: 'complete',
            supportedVersions: ['2026-07-28'],
            capabilities: { tools: {}, extensions: { [EXT]: {} } },
            _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'raw-modern', version: '2' } },
          }),
        };
  const table = { ...base, ...handlers };
  server.fallbackRequestHandler = (params, ctx) => {
    seen.push(ctx.method);
    const handler = table[ctx.method];
    if (!handler) throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${ctx.method}`);
    return handler(params, ctx);
  };
  void server.start();
  const client = new McpClient({ name: 'raw-test', version: '1' }, { ...options, era });
  cleanups.push(() => server.close());
  cleanups.push(() => client.close());
  await within(client.connect(clientSide), 5_000, 'connect');
  return { client, server, count: (method) => seen.filter((m) => m === method).length };
}

function legacyTask(status: string, extra: JsonObject = {}): JsonObject {
  return { taskId: 't1', status, createdAt: NOW, lastUpdatedAt: NOW, ttl: null, ...extra };
}

test('2025-11-25: tasks/get waits pollInterval; a too-short interval is bounded to 50 ms', async () => {
  let polls = 0;
  const raw = await rawServer('legacy', {
    'tools/call': () => ({ task: legacyTask('working', { pollInterval: 5_000 }) }),
    'tasks/get': () => {
      polls += 1;
      return polls === 1
        ? legacyTask('working', { pollInterval: 0, lastUpdatedAt: 'later' })
        : legacyTask('completed');
    },
    'tasks/result': () => ({ content: [{ type: 'text', text: 'done' }] }),
  });
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  const task = await raw.client.startToolTask('job', {});
  await vi.advanceTimersByTimeAsync(4_999);
  expect(raw.count('tasks/get')).toBe(0);
  await vi.advanceTimersByTimeAsync(1);
  expect(raw.count('tasks/get')).toBe(1);
  await vi.advanceTimersByTimeAsync(49);
  expect(raw.count('tasks/get')).toBe(1);
  await vi.advanceTimersByTimeAsync(1);
  expect(raw.count('tasks/get')).toBe(2);
  const result = await task.result();
  expect(result.content).toEqual([{ type: 'text', text: 'done' }]);
  expect(raw.count('tasks/result')).toBe(1);
});

test('2025-11-25: notifications/tasks/status updates the handle and polls at once', async () => {
  let done = false;
  const raw = await rawServer('legacy', {
    'tools/call': () => ({ task: legacyTask('working', { pollInterval: 60_000 }) }),
    'tasks/get': () => legacyTask(done ? 'completed' : 'working'),
    'tasks/result': () => ({ content: [{ type: 'text', text: 'ok' }] }),
  });
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  const task = await raw.client.startToolTask('job', {});
  done = true;
  await raw.server.notify('notifications/tasks/status', {
    ...legacyTask('working', { statusMessage: 'almost', lastUpdatedAt: 'later' }),
  });
  await vi.advanceTimersByTimeAsync(0);
  const result = await task.result();
  expect(result.content).toEqual([{ type: 'text', text: 'ok' }]);
  expect(raw.count('tasks/get')).toBe(1);
});

test('2026-07-28: pollIntervalMs is honoured', async () => {
  let polls = 0;
  const raw = await rawServer('modern', {
    'tools/call': () => ({ resultType: 'task', ...modernTask('working'), pollIntervalMs: 3_000 }),
    'tasks/get': () => {
      polls += 1;
      return polls === 1
        ? { resultType: 'complete', ...modernTask('working'), pollIntervalMs: 3_000, lastUpdatedAt: 'later' }
        : { resultType: 'complete', ...modernTask('completed'), result: { content: [] } };
    },
  });
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  const task = await raw.client.startToolTask('job', {});
  await vi.advanceTimersByTimeAsync(2_999);
  expect(raw.count('tasks/get')).toBe(0);
  await vi.advanceTimersByTimeAsync(1);
  expect(raw.count('tasks/get')).toBe(1);
  await vi.advanceTimersByTimeAsync(3_000);
  expect((await task.result()).content).toEqual([]);
});

function modernTask(status: string): JsonObject {
  return { taskId: 'm1', status, createdAt: NOW, lastUpdatedAt: NOW, ttlMs: null, pollIntervalMs: 50 };
}

test('a CreateTaskResult without taskId is a ProtocolViolationError (both eras, startToolTask and callTool)', async () => {
  const legacy = await rawServer('legacy', {
    'tools/list': () => ({
      tools: [{ name: 'job', inputSchema: { type: 'object' }, execution: { taskSupport: 'required' } }],
    }),
    'tools/call': () => ({ task: { status: 'working', createdAt: NOW, lastUpdatedAt: NOW, ttl: null } }),
  });
  await expect(legacy.client.startToolTask('job', {})).rejects.toThrow(ProtocolViolationError);
  await legacy.client.listTools();
  await expect(legacy.client.callTool('job', {})).rejects.toThrow(/has no taskId/);
  const modern = await rawServer('modern', {
    'tools/call': () => ({
      resultType: 'task',
      status: 'working',
      createdAt: NOW,
      lastUpdatedAt: NOW,
      ttlMs: null,
    }),
  });
  await expect(modern.client.startToolTask('job', {})).rejects.toThrow(/has no taskId/);
});

test('a tasks/get with a status the protocol does not have ends the task with a clear error', async () => {
  const legacy = await rawServer('legacy', {
    'tools/call': () => ({ task: legacyTask('working', { pollInterval: 50 }) }),
    'tasks/get': () => legacyTask('paused'),
  });
  const task = await legacy.client.startToolTask('job', {});
  await expect(within(task.result(), 5_000, 'legacy result')).rejects.toThrow(/status "paused"/);
  const modern = await rawServer('modern', {
    'tools/call': () => ({ resultType: 'task', ...modernTask('working') }),
    'tasks/get': () => ({ resultType: 'complete', ...modernTask('sleeping') }),
  });
  const other = await modern.client.startToolTask('job', {});
  await expect(within(other.result(), 5_000, 'modern result')).rejects.toThrow(ProtocolViolationError);
});

test('2025-11-25: a server without tasks.requests.tools.call is refused locally; tasks/list pages', async () => {
  const raw = await rawServer('legacy', {
    'tasks/list': (params) =>
      params.cursor === undefined
        ? { tasks: [legacyTask('working')], nextCursor: 'c2' }
        : { tasks: [{ ...legacyTask('completed'), taskId: 't2' }] },
  });
  const listed: string[] = [];
  for await (const task of raw.client.tasks()) listed.push(`${task.taskId}:${task.status}`);
  expect(listed).toEqual(['t1:working', 't2:completed']);
  const bare = await rawServer('legacy', {
    initialize: () => ({
      protocolVersion: '2025-11-25',
      capabilities: { tools: {} },
      serverInfo: { name: 'no-tasks', version: '1' },
    }),
  });
  await expect(bare.client.startToolTask('job', {})).rejects.toBeInstanceOf(TasksNotSupportedError);
  await expect(bare.client.listTasks()).rejects.toBeInstanceOf(TasksNotSupportedError);
  expect(bare.count('tools/call')).toBe(0);
});

test('2026-07-28: a question repeated by later polls is answered once (keys deduplicated)', async () => {
  let polls = 0;
  let asked = 0;
  const raw = await rawServer(
    'modern',
    {
      'tools/call': () => ({ resultType: 'task', ...modernTask('working') }),
      'tasks/get': () => {
        polls += 1;
        // The server applies answers lazily: the question shows again after it was answered.
        if (polls <= 3)
          return {
            resultType: 'complete',
            ...modernTask('input_required'),
            lastUpdatedAt: `t${polls}`,
            inputRequests: {
              q: {
                method: 'elicitation/create',
                params: { mode: 'form', message: 'Go?', requestedSchema: { type: 'object', properties: {} } },
              },
            },
          };
        return { resultType: 'complete', ...modernTask('completed'), result: { content: [] } };
      },
      'tasks/update': () => ({ resultType: 'complete' }),
    },
    {
      elicitation: {
        form: () => {
          asked += 1;
          return { action: 'accept', content: {} };
        },
      },
    },
  );
  const task = await raw.client.startToolTask('job', {});
  await within(task.result(), 5_000, 'result');
  expect(asked).toBe(1);
  expect(raw.count('tasks/update')).toBe(1);
  expect(raw.count('tasks/get')).toBe(4);
});

test('closing the client while a poll waits a long interval settles at once and leaves no timer', async () => {
  const raw = await rawServer('legacy', {
    'tools/call': () => ({ task: legacyTask('working', { pollInterval: 60_000 }) }),
  });
  const task = await raw.client.startToolTask('job', {});
  await raw.client.close();
  await expect(within(task.result(), 1_000, 'result after close')).rejects.toThrow(ConnectionClosedError);
});

test("2025-11-25: input_required opens tasks/result; the task's elicitation is answered with its related-task _meta", async () => {
  const RELATED = 'io.modelcontextprotocol/related-task';
  let phase: 'asking' | 'done' = 'asking';
  const answers: JsonObject[] = [];
  const raw: RawServer = await rawServer(
    'legacy',
    {
      'tools/call': () => ({ task: legacyTask('input_required', { pollInterval: 50 }) }),
      'tasks/get': () => legacyTask(phase === 'done' ? 'completed' : 'input_required'),
      'tasks/result': async () => {
        answers.push(
          await raw.server.request('elicitation/create', {
            mode: 'form',
            message: 'Sure?',
            requestedSchema: { type: 'object', properties: {} },
            _meta: { [RELATED]: { taskId: 't1' } },
          }),
        );
        phase = 'done';
        return { content: [{ type: 'text', text: 'answered' }], _meta: { [RELATED]: { taskId: 't1' } } };
      },
    },
    { elicitation: { form: () => ({ action: 'accept', content: {} }) } },
  );
  const task = await raw.client.startToolTask('job', {});
  const result = await within(task.result(), 5_000, 'result');
  expect(result.content).toEqual([{ type: 'text', text: 'answered' }]);
  expect(raw.count('tasks/result')).toBe(1);
  expect(answers).toEqual([{ action: 'accept', content: {}, _meta: { [RELATED]: { taskId: 't1' } } }]);
});

test('2025-11-25: a failed task whose tasks/result is a JSON-RPC error rejects with that McpError', async () => {
  const raw = await rawServer('legacy', {
    'tools/call': () => ({ task: legacyTask('failed', { statusMessage: 'disk full' }) }),
    'tasks/result': () => {
      throw new McpError(ErrorCode.InternalError, 'disk full');
    },
  });
  const task = await raw.client.startToolTask('job', {});
  const error = await within(task.result(), 5_000, 'result').catch((e: unknown) => e);
  expect(error).toBeInstanceOf(McpError);
  expect(error).toMatchObject({ code: ErrorCode.InternalError, message: 'disk full' });
  expect(task.status).toBe('failed');
});

test('2025-11-25: a plain callTool refused with -32601 by a server that runs tool tasks is run as a task (learnt once)', async () => {
  const raw = await rawServer('legacy', {
    'tools/call': (params) => {
      if (params.task === undefined)
        throw new McpError(ErrorCode.MethodNotFound, 'render runs only as a task');
      return { task: legacyTask('completed') };
    },
    'tasks/result': () => ({ content: [{ type: 'text', text: 'rendered' }] }),
  });
  expect((await raw.client.callTool('render', {})).content).toEqual([{ type: 'text', text: 'rendered' }]);
  expect((await raw.client.callTool('render', {})).content).toEqual([{ type: 'text', text: 'rendered' }]);
  // One refused plain call, then two task-augmented ones.
  expect(raw.count('tools/call')).toBe(3);
});

test("callTool's maxTotalTimeoutMs cancels the task it runs for a required tool: RequestTimeoutError", async () => {
  const raw = await rawServer('legacy', {
    'tools/list': () => ({
      tools: [{ name: 'job', inputSchema: { type: 'object' }, execution: { taskSupport: 'required' } }],
    }),
    'tools/call': () => ({ task: legacyTask('working', { pollInterval: 400 }) }),
    'tasks/get': () => legacyTask('working', { pollInterval: 400 }),
    'tasks/cancel': () => legacyTask('cancelled'),
  });
  await raw.client.listTools();
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  const call = raw.client.callTool('job', {}, { maxTotalTimeoutMs: 1_000 }).catch((e: unknown) => e);
  await vi.advanceTimersByTimeAsync(999);
  expect(raw.count('tasks/cancel')).toBe(0);
  await vi.advanceTimersByTimeAsync(1);
  const error = await call;
  expect(error).toBeInstanceOf(RequestTimeoutError);
  expect(raw.count('tasks/cancel')).toBe(1);
  expect(raw.count('tasks/get')).toBe(2);
});
