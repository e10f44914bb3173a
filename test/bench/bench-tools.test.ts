/**
 * The tools Keel's bench servers serve behave as the benchmark's load generator expects: `echo`
 * returns its text, `wait_sampling` returns what the client sampled, `echo_task` is `echo` that
 * may run as a task (a plain call for a client that does not take tasks), and arguments are still
 * validated (the benchmark must not measure a server that skips validation) — by Keel's JSON
 * Schema checker for the default server, by zod itself for the zod one.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createBenchServer } from '../../bench/servers/keel-tools.js';
import { createZodBenchServer } from '../../bench/servers/keel-zod-tools.js';
import type { McpServer } from 'keel-mcp/server';
import { Client } from 'keel-mcp/client';
import type { JsonObject } from 'keel-mcp/core';
import { createMemoryPair } from 'keel-mcp/memory';
import { useProcessGuard, within } from '../helpers/guard.js';

const JSON_SCHEMA_ERROR =
  'Invalid arguments for tool "echo": /text: Instance type "number" is invalid. Expected "string".';
const ZOD_ERROR = 'Invalid arguments for tool "echo": text: Invalid input: expected string, received number';
const echoSchema = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] };
const samplingSchema = { type: 'object', properties: { prompt: { type: 'string' } }, required: ['prompt'] };
const draft = { $schema: 'https://json-schema.org/draft/2020-12/schema' };

describe.each([
  {
    schemas: 'raw JSON Schema',
    create: createBenchServer,
    invalid: JSON_SCHEMA_ERROR,
    advertised: [echoSchema, samplingSchema],
  },
  {
    schemas: 'zod',
    create: createZodBenchServer,
    invalid: ZOD_ERROR,
    advertised: [
      { ...draft, ...echoSchema },
      { ...draft, ...samplingSchema },
    ],
  },
] satisfies { schemas: string; create: () => McpServer; invalid: string; advertised: object[] }[])(
  'bench server tools ($schemas)',
  ({ create, invalid, advertised }) => {
    useProcessGuard();
    const cleanups: (() => Promise<void>)[] = [];
    afterEach(async () => {
      for (const cleanup of cleanups.splice(0)) await cleanup();
    });

    async function connected(): Promise<Client> {
      const server = create();
      const [clientSide, serverSide] = createMemoryPair();
      server.connect(serverSide);
      const client = new Client({ name: 'bench-test', version: '1.0.0' }, { capabilities: { sampling: {} } });
      client.setRequestHandler('sampling/createMessage', (params: JsonObject) => {
        const messages = params.messages as { content: { text: string } }[];
        return {
          role: 'assistant',
          content: { type: 'text', text: `sampled: ${messages[0]!.content.text}` },
          model: 'm',
        };
      });
      await within(client.connect(clientSide), 5_000, 'connect');
      cleanups.push(async () => {
        await client.close();
        await server.close();
      });
      return client;
    }

    it('echo returns a text content equal to its input', async () => {
      const client = await connected();
      const result = await within(
        client.request('tools/call', { name: 'echo', arguments: { text: 'hi there' } }),
      );
      expect(result).toEqual({ content: [{ type: 'text', text: 'hi there' }] });
    });

    it('wait_sampling asks the client and returns the sampled text', async () => {
      const client = await connected();
      const result = await within(
        client.request('tools/call', { name: 'wait_sampling', arguments: { prompt: 'prompt 7' } }),
      );
      expect(result).toEqual({ content: [{ type: 'text', text: 'sampled: prompt 7' }] });
    });

    it('echo_task is echo that may run as a task: a plain call here (2025-11-25 without a task request)', async () => {
      const client = await connected();
      const result = await within(
        client.request('tools/call', { name: 'echo_task', arguments: { text: 'as a call' } }),
      );
      expect(result).toEqual({ content: [{ type: 'text', text: 'as a call' }] });
      const { tools } = (await within(client.request('tools/list', {}))) as { tools: JsonObject[] };
      expect(tools.find((tool) => tool.name === 'echo_task')?.execution).toEqual({ taskSupport: 'optional' });
      expect(tools.find((tool) => tool.name === 'echo')?.execution).toBeUndefined();
    });

    it('keeps validating arguments', async () => {
      const client = await connected();
      const result = await within(client.request('tools/call', { name: 'echo', arguments: { text: 5 } }));
      expect(result).toEqual({
        content: [{ type: 'text', text: invalid }],
        isError: true,
      });
      const missing = await within(client.request('tools/call', { name: 'wait_sampling', arguments: {} }));
      expect(missing.isError).toBe(true);
    });

    it('advertises the JSON Schemas of its inputs', async () => {
      const client = await connected();
      const { tools } = (await within(client.request('tools/list', {}))) as { tools: JsonObject[] };
      expect(tools.map((tool) => [tool.name, tool.inputSchema])).toEqual([
        ['echo', advertised[0]],
        ['wait_sampling', advertised[1]],
        ['echo_task', advertised[0]],
      ]);
    });
  },
);
