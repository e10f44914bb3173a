/**
 * Issue 25 interop (acceptance): Keel's McpClient as a client of a server written with the
 * official SDK 1.32 and its experimental tasks API (registerToolTask, InMemoryTaskStore,
 * InMemoryTaskMessageQueue), in the 2025-11-25 task format, over stdio and Streamable HTTP:
 * create, poll, input on the way (an elicitation delivered on tasks/result), cancel, result,
 * tasks/list, and a plain callTool of a task-only tool.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, test } from 'vitest';
import { McpClient, TaskCancelledError, type McpClientOptions } from 'keel-mcp/client';
import type { Transport } from 'keel-mcp/core';
import { StreamableHttpClientTransport } from 'keel-mcp/http';
import { StdioClientTransport } from 'keel-mcp/stdio';
import { useProcessGuard, within } from '../helpers/guard.js';

useProcessGuard();

const FIXTURE = fileURLToPath(new URL('./fixtures/official-tasks-server.mjs', import.meta.url));
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await within(cleanup(), 10_000, 'cleanup');
});

async function httpChild(): Promise<string> {
  const child: ChildProcess = spawn(process.execPath, [FIXTURE, 'http'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const gone = new Promise<void>((resolve) => child.once('close', () => resolve()));
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await gone;
  });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  return within(
    new Promise<string>((resolve, reject) => {
      let stdout = '';
      child.stdout!.setEncoding('utf8').on('data', (text: string) => {
        stdout += text;
        if (stdout.includes('\n')) resolve(stdout.split('\n')[0]!.trim());
      });
      child.once('close', (code) => reject(new Error(`fixture exited (${code}): ${stderr}`)));
    }),
    10_000,
    'official tasks server URL',
  );
}

const asked: string[] = [];
const OPTIONS: McpClientOptions = {
  elicitation: {
    form: (params) => {
      asked.push(params.message);
      return { action: 'accept', content: { ok: true } };
    },
  },
};

const TRANSPORTS: [string, () => Promise<Transport>][] = [
  [
    'stdio',
    async () => new StdioClientTransport({ command: process.execPath, args: [FIXTURE], stderr: 'pipe' }),
  ],
  ['Streamable HTTP', async () => new StreamableHttpClientTransport(new URL(await httpChild()))],
];

function text(result: { content: unknown[] }): string {
  return (result.content[0] as { text: string }).text;
}

describe.each(TRANSPORTS)('McpClient ⇄ official SDK 1.32 tasks server over %s', (_name, makeTransport) => {
  async function connect(): Promise<McpClient> {
    const client = new McpClient({ name: 'keel-tasks-interop', version: '1.0.0' }, OPTIONS);
    cleanups.push(() => client.close());
    await within(client.connect(await makeTransport()), 10_000, 'connect');
    expect(client.era).toBe('legacy');
    return client;
  }

  test('create, poll (statuses), result, tasks/get and tasks/list', async () => {
    const client = await connect();
    const task = await client.startToolTask('slow', { ms: 200 }, { ttlMs: 60_000 });
    expect(task.taskId).toMatch(/^[0-9a-f]{32}$/);
    const statuses: string[] = [];
    for await (const t of task.statuses()) statuses.push(t.status);
    expect(statuses.at(-1)).toBe('completed');
    expect(text(await within(task.result(), 10_000, 'slow result'))).toBe('slept 200');
    expect(await client.getTask(task.taskId)).toMatchObject({
      taskId: task.taskId,
      status: 'completed',
      ttlMs: 60_000,
    });
    const listed = (await client.listTasks()).tasks.map((t) => t.taskId);
    expect(listed).toContain(task.taskId);
  });

  test('input on the way: the elicitation arrives on tasks/result and is answered by the handler', async () => {
    asked.length = 0;
    const client = await connect();
    const task = await client.startToolTask('confirm', { file: 'a.txt' });
    expect(text(await within(task.result(), 10_000, 'confirm result'))).toBe('deleted a.txt');
    expect(asked).toEqual(['Delete a.txt?']);
  });

  test('a plain callTool of a required tool runs it as a task', async () => {
    asked.length = 0;
    const client = await connect();
    await client.listTools(); // the SDK lists `confirm` as taskSupport: required
    expect(text(await within(client.callTool('confirm', { file: 'b.txt' }), 10_000, 'callTool'))).toBe(
      'deleted b.txt',
    );
    expect(text(await client.callTool('echo', { text: 'plain' }))).toBe('plain');
  });

  test('cancel: tasks/cancel is sent; the server shows cancelled; result() rejects', async () => {
    const client = await connect();
    const task = await client.startToolTask('block', {});
    await within(task.cancel(), 10_000, 'cancel');
    await expect(task.result()).rejects.toBeInstanceOf(TaskCancelledError);
    expect(task.status).toBe('cancelled');
    expect((await client.getTask(task.taskId)).status).toBe('cancelled');
  });
});
