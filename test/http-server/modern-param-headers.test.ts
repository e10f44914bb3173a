/**
 * Issue 10: `x-mcp-header` tool parameters mirrored as `Mcp-Param-*` headers (2026-07-28
 * Streamable HTTP, SEP-2243). A real HTTP server on 127.0.0.1, raw fetch: the server refuses a
 * malformed, disagreeing or missing header with 400 / -32020 before the tool runs, accepts plain
 * and Base64 forms, and legacy sessions are not checked at all.
 */
import { afterEach, expect, test } from 'vitest';
import { serveHttp, type HttpServing } from 'keel-mcp/node';
import type { JsonObject } from 'keel-mcp/core';
import { McpServer } from 'keel-mcp/server';
import { paramHeadersOf } from '../../src/server/modern/param-headers.js';
import { useProcessGuard } from '../helpers/guard.js';
import { callTool, openSession, post } from './support/harness.js';

useProcessGuard();

const MODERN = '2026-07-28';

let serving: HttpServing | undefined;
let runs: JsonObject[] = [];
afterEach(async () => {
  await serving?.close({ deadlineMs: 2_000 });
  serving = undefined;
  runs = [];
});

const SCHEMA = {
  type: 'object',
  properties: {
    region: { type: 'string', 'x-mcp-header': 'Region' },
    count: { type: 'integer', 'x-mcp-header': 'Count' },
    dry: { type: 'boolean', 'x-mcp-header': 'Dry' },
    target: {
      type: 'object',
      properties: { zone: { type: 'string', 'x-mcp-header': 'Zone' } },
    },
    query: { type: 'string' },
  },
} as const;

async function start(): Promise<string> {
  const server = new McpServer({ name: 'param-headers', version: '1' }, { onerror: undefined });
  server.tool('route', { description: 'Records its arguments', input: SCHEMA }, (args) => {
    runs.push(args);
    return 'routed';
  });
  serving = await serveHttp(server, { port: 0, keepAliveMs: 0 });
  return serving.url;
}

function send(url: string, args: JsonObject, params: Record<string, string>): Promise<Response> {
  const body = {
    jsonrpc: '2.0',
    id: 7,
    method: 'tools/call',
    params: {
      name: 'route',
      arguments: args,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': MODERN,
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  };
  const headers: Record<string, string> = {
    'mcp-protocol-version': MODERN,
    'mcp-method': 'tools/call',
    'mcp-name': 'route',
  };
  for (const [name, value] of Object.entries(params)) headers[`mcp-param-${name}`] = value;
  return post(url, body, { headers });
}

async function answer(response: Response): Promise<JsonObject> {
  expect(response.headers.get('content-type')).toBe('application/json');
  return (await response.json()) as JsonObject;
}

test('paramHeadersOf: only annotations reached through properties', () => {
  expect(paramHeadersOf(SCHEMA as unknown as JsonObject)).toEqual([
    { path: ['region'], header: 'Region' },
    { path: ['count'], header: 'Count' },
    { path: ['dry'], header: 'Dry' },
    { path: ['target', 'zone'], header: 'Zone' },
  ]);
  const unreachable = {
    type: 'object',
    properties: {
      list: { type: 'array', items: { type: 'string', 'x-mcp-header': 'Item' } },
      either: { anyOf: [{ type: 'string', 'x-mcp-header': 'Either' }] },
    },
  };
  expect(paramHeadersOf(unreachable)).toEqual([]);
});

test.each([
  [
    'plain values',
    { region: 'us-west1', count: 42, dry: false },
    { region: 'us-west1', count: '42', dry: 'false' },
  ],
  ['a Base64 value', { region: 'Hello, 世界' }, { region: '=?base64?SGVsbG8sIOS4lueVjA==?=' }],
  ['an integer compared numerically', { count: 42 }, { count: '42.0' }],
  ['a nested property', { target: { zone: 'b' } }, { zone: 'b' }],
  ['a value without the =?base64? prefix, taken literally', { region: 'SGVsbG8=' }, { region: 'SGVsbG8=' }],
  [
    'a value without the ?= suffix, taken literally',
    { region: '=?base64?SGVsbG8=' },
    { region: '=?base64?SGVsbG8=' },
  ],
  ['no annotated value and no header', { query: 'q' }, {}],
  ['a null value and no header', { region: null }, {}],
] as [string, JsonObject, Record<string, string>][])('accepted: %s', async (_label, args, params) => {
  const url = await start();
  const response = await send(url, args, params);
  expect(response.status).toBe(200);
  const body = await answer(response);
  expect(body.error).toBeUndefined();
  // A null breaks the string schema: the tool is reached, the model gets the schema error.
  if (args.region === null) return;
  expect((body.result as JsonObject).content).toEqual([{ type: 'text', text: 'routed' }]);
  expect(runs).toEqual([args]);
});

test.each([
  ['invalid Base64 padding', { region: 'Hello' }, { region: '=?base64?SGVsbG8?=' }, 'malformed'],
  ['non-alphabet Base64 characters', { region: 'Hello' }, { region: '=?base64?SGVs!!!bG8=?=' }, 'malformed'],
  [
    'Base64 of something else',
    { region: 'Hello' },
    { region: `=?base64?${btoa('Other')}?=` },
    'does not match',
  ],
  ['a plain value that differs', { region: 'us-west1' }, { region: 'us-east1' }, 'does not match'],
  ['a value that differs in case', { region: 'us-west1' }, { region: 'US-WEST1' }, 'does not match'],
  ['the header missing while the body has the value', { region: 'us-west1' }, {}, 'is required'],
  ['an integer header that is not that number', { count: 42 }, { count: '43' }, 'does not match'],
  ['a boolean header in another spelling', { dry: true }, { dry: 'True' }, 'does not match'],
  ['a nested header missing', { target: { zone: 'b' } }, {}, 'is required'],
  ['a header whose value is absent from the body', {}, { region: 'us-west1' }, 'does not match'],
] as [string, JsonObject, Record<string, string>, string][])(
  'refused with 400 / -32020 before the tool runs: %s',
  async (_label, args, params, reason) => {
    const url = await start();
    const response = await send(url, args, params);
    expect(response.status).toBe(400);
    const body = await answer(response);
    expect(body).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32020 } });
    expect((body.error as JsonObject).message).toContain(reason);
    expect(runs).toEqual([]);
  },
);

test('a legacy session is not checked: no Mcp-Param headers, the tool runs', async () => {
  const url = await start();
  const sessionId = await openSession(url);
  const response = await post(url, callTool(8, 'route', { region: 'us-west1' }), { sessionId });
  expect(response.status).toBe(200);
  const body = await answer(response);
  expect((body.result as JsonObject).content).toEqual([{ type: 'text', text: 'routed' }]);
  expect(runs).toEqual([{ region: 'us-west1' }]);
});
