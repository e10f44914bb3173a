import { toStandardJsonSchema } from '@valibot/to-json-schema';
import { type } from 'arktype';
import * as v from 'valibot';
import { afterEach, describe, expect, test } from 'vitest';
import { z } from 'zod';
import { ErrorCode, McpError } from 'keel-mcp/core';
import { McpServer } from 'keel-mcp/server';
import { useProcessGuard } from '../helpers/guard.js';
import { connect, type Connected } from './harness.js';

useProcessGuard();
let open: Connected | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

const newServer = (): McpServer => new McpServer({ name: 's', version: '1' });

const CITY_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  properties: { city: { type: 'string' } },
  required: ['city'],
};

describe('tool schemas from each library', () => {
  const cases: [string, unknown][] = [
    ['zod 4', z.object({ city: z.string() })],
    ['valibot (toStandardJsonSchema)', toStandardJsonSchema(v.object({ city: v.string() }))],
    ['arktype', type({ city: 'string' })],
  ];
  for (const [library, schema] of cases) {
    test(`${library}: listed as 2020-12 JSON Schema, arguments validated`, async () => {
      const server = newServer();
      server.tool('forecast', { description: 'Forecast', input: schema as never }, (args) => {
        return `Sunny in ${String((args as { city: string }).city)}`;
      });
      open = await connect(server);
      const { tools } = (await open.client.request('tools/list', {})) as { tools: { inputSchema: object }[] };
      expect(tools[0]!.inputSchema).toMatchObject(CITY_SCHEMA);
      const ok = await open.client.request('tools/call', { name: 'forecast', arguments: { city: 'Oslo' } });
      expect(ok).toEqual({ content: [{ type: 'text', text: 'Sunny in Oslo' }] });
      const bad = await open.client.request('tools/call', { name: 'forecast', arguments: { city: 3 } });
      expect(bad.isError).toBe(true);
      expect((bad.content as { text: string }[])[0]!.text).toMatch(/Invalid arguments for tool "forecast"/);
    });
  }

  test('raw JSON Schema 2020-12 is listed byte for byte and checked by @cfworker/json-schema', async () => {
    const raw = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      $defs: { address: { type: 'object', properties: { street: { type: 'string' } } } },
      properties: { name: { type: 'string' }, address: { $ref: '#/$defs/address' } },
      additionalProperties: false,
    };
    const server = newServer();
    server.tool('raw', { description: 'Raw', input: raw }, (args) => JSON.stringify(args));
    open = await connect(server);
    const { tools } = (await open.client.request('tools/list', {})) as { tools: { inputSchema: object }[] };
    expect(JSON.stringify(tools[0]!.inputSchema)).toBe(JSON.stringify(raw));
    const ok = await open.client.request('tools/call', {
      name: 'raw',
      arguments: { name: 'x', address: { street: 'Main' } },
    });
    expect(ok.isError).toBeUndefined();
    const extra = await open.client.request('tools/call', { name: 'raw', arguments: { other: 1 } });
    expect(extra).toEqual({
      content: [
        {
          type: 'text',
          text: 'Invalid arguments for tool "raw": /: Property "other" does not match additional properties schema.',
        },
      ],
      isError: true,
    });
    const badRef = await open.client.request('tools/call', {
      name: 'raw',
      arguments: { address: { street: 1 } },
    });
    expect(badRef.content).toEqual([
      {
        type: 'text',
        text: 'Invalid arguments for tool "raw": /address/street: Instance type "number" is invalid. Expected "string".',
      },
    ]);
  });

  test('a tool without input lists the recommended empty object schema', async () => {
    const server = newServer();
    server.tool('noargs', { description: 'No args' }, () => 'ok');
    open = await connect(server);
    const { tools } = (await open.client.request('tools/list', {})) as { tools: { inputSchema: object }[] };
    expect(tools[0]!.inputSchema).toEqual({ type: 'object', additionalProperties: false });
    expect(await open.client.request('tools/call', { name: 'noargs' })).toEqual({
      content: [{ type: 'text', text: 'ok' }],
    });
  });
});

describe('registration fails loudly', () => {
  test('a schema the library cannot convert throws at registration', () => {
    const server = newServer();
    expect(() =>
      server.tool('d', { description: 'D', input: z.object({ when: z.date() }) }, () => 'x'),
    ).toThrow(/tool "d" input.*zod.*JSON Schema/);
    expect(() => server.tool('a', { description: 'A', input: type({ when: 'Date' }) }, () => 'x')).toThrow(
      /tool "a" input.*arktype/,
    );
  });

  test('a valibot schema without a converter throws with a hint', () => {
    expect(() =>
      newServer().tool('v', { description: 'V', input: v.object({ a: v.string() }) }, () => 'x'),
    ).toThrow(/toStandardJsonSchema/);
  });

  test('unsupported dialects, non-object schemas, duplicates and missing descriptions throw', () => {
    const server = newServer();
    expect(() =>
      server.tool(
        'x',
        { description: 'X', input: { $schema: 'https://example.com/dialect', type: 'object' } },
        () => '',
      ),
    ).toThrow(/unsupported JSON Schema dialect/);
    expect(() => server.tool('y', { description: 'Y', input: z.string() }, () => '')).toThrow(
      /must describe an object/,
    );
    server.tool('dup', { description: 'Dup' }, () => '');
    expect(() => server.tool('dup', { description: 'Dup' }, () => '')).toThrow(/already registered/);
    expect(() => server.tool('nodesc', { description: '' }, () => '')).toThrow(/non-empty description/);
  });
});

describe('results', () => {
  test('an output schema yields validated structuredContent and a JSON text mirror', async () => {
    const server = newServer();
    server.tool(
      'add',
      {
        description: 'Add',
        input: z.object({ a: z.number(), b: z.number() }),
        output: z.object({ sum: z.number() }),
      },
      ({ a, b }) => ({ sum: a + b }),
    );
    open = await connect(server);
    const { tools } = (await open.client.request('tools/list', {})) as { tools: { outputSchema: object }[] };
    expect(tools[0]!.outputSchema).toMatchObject({ type: 'object', properties: { sum: { type: 'number' } } });
    expect(await open.client.request('tools/call', { name: 'add', arguments: { a: 1, b: 2 } })).toEqual({
      content: [{ type: 'text', text: '{"sum":3}' }],
      structuredContent: { sum: 3 },
    });
  });

  test('structuredContent that breaks the output schema is a -32603 error for the author', async () => {
    const server = newServer();
    server.tool(
      'liar',
      { description: 'Returns the wrong shape', output: { type: 'object', required: ['n'] } },
      () => ({ m: 1 }),
    );
    server.tool(
      'missing',
      { description: 'Returns text only', output: z.object({ n: z.number() }) },
      () => 'no structure',
    );
    open = await connect(server);
    await expect(open.client.request('tools/call', { name: 'liar' })).rejects.toMatchObject({
      code: ErrorCode.InternalError,
      message: expect.stringMatching(/does not match its output schema/),
    });
    await expect(open.client.request('tools/call', { name: 'missing' })).rejects.toMatchObject({
      code: ErrorCode.InternalError,
    });
  });

  test('an isError result skips output validation; a full CallToolResult passes through', async () => {
    const server = newServer();
    server.tool('e', { description: 'E', output: z.object({ n: z.number() }) }, () => ({
      content: [{ type: 'text', text: 'failed' }],
      isError: true,
    }));
    server.tool('full', { description: 'F', output: z.object({ n: z.number() }) }, () => ({
      content: [{ type: 'text', text: 'n is 1' }],
      structuredContent: { n: 1 },
      _meta: { 'example.com/x': 1 },
    }));
    open = await connect(server);
    expect((await open.client.request('tools/call', { name: 'e' })).isError).toBe(true);
    expect(await open.client.request('tools/call', { name: 'full' })).toEqual({
      content: [{ type: 'text', text: 'n is 1' }],
      structuredContent: { n: 1 },
      _meta: { 'example.com/x': 1 },
    });
  });

  test('a thrown error becomes a tool execution error; -32042 stays a JSON-RPC error', async () => {
    const server = newServer();
    server.tool('boom', { description: 'Throws' }, () => {
      throw new Error('kaput');
    });
    server.tool('url', { description: 'Needs a URL elicitation' }, () => {
      throw new McpError(ErrorCode.UrlElicitationRequired, 'Authorize first', { elicitations: [] });
    });
    open = await connect(server);
    expect(await open.client.request('tools/call', { name: 'boom' })).toEqual({
      content: [{ type: 'text', text: 'kaput' }],
      isError: true,
    });
    await expect(open.client.request('tools/call', { name: 'url' })).rejects.toMatchObject({
      code: ErrorCode.UrlElicitationRequired,
    });
  });

  test('an unknown tool is -32602', async () => {
    const server = newServer();
    server.tool('t', { description: 'T' }, () => '');
    open = await connect(server);
    await expect(open.client.request('tools/call', { name: 'nope' })).rejects.toMatchObject({
      code: ErrorCode.InvalidParams,
      message: 'Unknown tool: nope',
    });
    await expect(open.client.request('tools/call', { name: 't', arguments: [1] })).rejects.toMatchObject({
      code: ErrorCode.InvalidParams,
    });
  });

  test('title, annotations, icons and _meta are listed as given', async () => {
    const server = newServer();
    const extra = {
      title: 'Pretty',
      annotations: { readOnlyHint: true, openWorldHint: false },
      icons: [{ src: 'https://example.com/i.png', mimeType: 'image/png', sizes: ['48x48'] }],
      _meta: { 'example.com/k': 'v' },
    };
    server.tool('m', { description: 'M', ...extra }, () => '');
    open = await connect(server);
    const { tools } = (await open.client.request('tools/list', {})) as { tools: object[] };
    expect(tools[0]).toEqual({
      name: 'm',
      description: 'M',
      inputSchema: { type: 'object', additionalProperties: false },
      ...extra,
    });
  });
});
