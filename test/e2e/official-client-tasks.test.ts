/**
 * Issue 25 acceptance (interop, 2025-11-25 format): the official SDK 1.32 `Client` with its
 * experimental tasks API drives Keel's fixture task tools over stdio (a real child process, built
 * package: `npm run build` first) and Streamable HTTP (stateful): create, poll, input on the way
 * (an elicitation answered by the SDK's ElicitRequest handler, arriving through tasks/result),
 * cancel, result, list.
 */
import { existsSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CallToolResultSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { createFixtureServer } from '../../examples/fixture-server.js';
import { useProcessGuard, within } from '../helpers/guard.js';
import { hostHttp, type HttpHost } from './support/http-server.js';

const FIXTURE = 'dist/examples/fixture-stdio.js';
const RELATED = 'io.modelcontextprotocol/related-task';

useProcessGuard();

type Kind = 'stdio' | 'http';

describe.each<Kind>(['stdio', 'http'])(
  'official SDK 1.32 client ⇄ Keel tasks (2025-11-25) over %s',
  (kind) => {
    let host: HttpHost | undefined;
    let server: ReturnType<typeof createFixtureServer> | undefined;
    let client: Client;
    let elicited: Record<string, unknown>[];

    function transportFor(): Transport {
      if (kind === 'http') return new StreamableHTTPClientTransport(new URL(host!.url));
      if (!existsSync(FIXTURE)) throw new Error(`${FIXTURE} is missing: run \`npm run build\` first`);
      return new StdioClientTransport({ command: process.execPath, args: [FIXTURE], stderr: 'pipe' });
    }

    beforeEach(async () => {
      server = kind === 'http' ? createFixtureServer() : undefined;
      host = server === undefined ? undefined : await hostHttp(server, 'stateful');
      elicited = [];
      client = new Client(
        { name: 'sdk-tasks', version: '1.0.0' },
        { capabilities: { elicitation: { form: {} } } },
      );
      client.setRequestHandler(ElicitRequestSchema, (request) => {
        const params = request.params as Record<string, unknown>;
        elicited.push(params);
        return { action: 'accept', content: { confirm: true } };
      });
      await within(client.connect(transportFor()), 10_000, 'SDK client connect');
    });

    afterEach(async () => {
      await within(client.close(), 5_000, 'SDK client close');
      await host?.close();
      // The tasks (and their store's expiry timers) belong to the server, not to the HTTP host.
      await server?.close();
    });

    test('the server declares tasks; tools/list shows taskSupport', async () => {
      expect(client.getServerCapabilities()?.tasks).toEqual({
        list: {},
        cancel: {},
        requests: { tools: { call: {} } },
      });
      const { tools } = await client.listTools();
      expect(tools.find((t) => t.name === 'slow_compute')?.execution).toEqual({ taskSupport: 'optional' });
      expect(tools.find((t) => t.name === 'confirm_delete')?.execution).toEqual({ taskSupport: 'required' });
    });

    test('create, poll, result: callToolStream with a ttl', async () => {
      const seen: string[] = [];
      let result: unknown;
      let taskId = '';
      const stream = client.experimental.tasks.callToolStream(
        { name: 'slow_compute', arguments: { seconds: 0.2, label: 'sum' } },
        CallToolResultSchema,
        { task: { ttl: 60_000 } },
      );
      for await (const message of stream) {
        seen.push(message.type);
        if (message.type === 'taskCreated') {
          taskId = message.task.taskId;
          expect(message.task.status).toBe('working');
          expect(message.task.ttl).toBe(60_000);
        }
        if (message.type === 'result') result = message.result;
        if (message.type === 'error') throw message.error;
      }
      expect(seen[0]).toBe('taskCreated');
      expect(seen.at(-1)).toBe('result');
      expect(result).toMatchObject({
        content: [{ type: 'text', text: 'Computed sum after 0.2 s' }],
        _meta: { [RELATED]: { taskId } },
      });
      expect(await client.experimental.tasks.getTask(taskId)).toMatchObject({ taskId, status: 'completed' });
      const listed = await client.experimental.tasks.listTasks();
      expect(listed.tasks.map((t) => t.taskId)).toContain(taskId);
    });

    test('input on the way: the elicitation reaches the SDK handler through tasks/result', async () => {
      await client.listTools(); // the SDK adds `task: {}` for a tool listed as required
      let result: unknown;
      for await (const message of client.experimental.tasks.callToolStream(
        { name: 'confirm_delete', arguments: { filename: 'a.txt' } },
        CallToolResultSchema,
      )) {
        if (message.type === 'result') result = message.result;
        if (message.type === 'error') throw message.error;
      }
      expect(result).toMatchObject({ content: [{ type: 'text', text: 'Deleted a.txt' }] });
      expect(elicited).toHaveLength(1);
      expect(elicited[0]).toMatchObject({ message: 'Delete a.txt?' });
      expect((elicited[0]?._meta as Record<string, unknown>)[RELATED]).toMatchObject({
        taskId: expect.any(String),
      });
    });

    test('cancel: cancelTask answers the cancelled task; a second cancel is refused with -32602', async () => {
      const stream = client.experimental.tasks.callToolStream(
        { name: 'slow_compute', arguments: { seconds: 30 } },
        CallToolResultSchema,
        { task: { ttl: 60_000 } },
      );
      const first = await stream.next();
      const created = first.value as { type: string; task: { taskId: string } };
      expect(created.type).toBe('taskCreated');
      await stream.return(undefined);
      const taskId = created.task.taskId;
      const cancelled = await client.experimental.tasks.cancelTask(taskId);
      expect(cancelled).toMatchObject({ taskId, status: 'cancelled' });
      expect(await client.experimental.tasks.getTask(taskId)).toMatchObject({ status: 'cancelled' });
      await expect(client.experimental.tasks.cancelTask(taskId)).rejects.toMatchObject({ code: -32602 });
    });

    test('a tool result with isError ends failed; tasks/result still returns it', async () => {
      const stream = client.experimental.tasks.callToolStream({ name: 'failing_job' }, CallToolResultSchema, {
        task: { ttl: 60_000 },
      });
      const first = await stream.next();
      const taskId = (first.value as { task: { taskId: string } }).task.taskId;
      await stream.return(undefined);
      const result = await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
      expect(result).toMatchObject({ isError: true, content: [{ type: 'text', text: 'The job failed' }] });
      expect(await client.experimental.tasks.getTask(taskId)).toMatchObject({ status: 'failed' });
    });
  },
);

describe('official SDK 1.32 client ⇄ Keel tasks over Streamable HTTP: across connections', () => {
  test('the client that made the task disconnects; a new client (new session) fetches the result by id', async () => {
    const server = createFixtureServer();
    const host = await hostHttp(server, 'stateful');
    const clients: Client[] = [];
    try {
      const connectClient = async (): Promise<Client> => {
        const client = new Client({ name: 'sdk-tasks', version: '1.0.0' });
        clients.push(client);
        await within(
          client.connect(new StreamableHTTPClientTransport(new URL(host.url))),
          5_000,
          'SDK client connect',
        );
        return client;
      };
      const first = await connectClient();
      const stream = first.experimental.tasks.callToolStream(
        { name: 'slow_compute', arguments: { seconds: 0.3, label: 'later' } },
        CallToolResultSchema,
        { task: { ttl: 60_000 } },
      );
      const created = (await stream.next()).value as { task: { taskId: string } };
      await stream.return(undefined);
      await within(first.close(), 5_000, 'first client close');
      const second = await connectClient();
      const result = await second.experimental.tasks.getTaskResult(created.task.taskId, CallToolResultSchema);
      expect(result).toMatchObject({
        content: [{ type: 'text', text: 'Computed later after 0.3 s' }],
        _meta: { [RELATED]: { taskId: created.task.taskId } },
      });
    } finally {
      for (const client of clients) await within(client.close(), 5_000, 'SDK client close');
      await host.close();
      await server.close();
    }
  });
});
