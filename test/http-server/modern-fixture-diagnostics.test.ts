/**
 * Issue 10: the conformance fixture's 2026-07-28 `server-stateless` diagnostic tools
 * (examples/fixture/diagnostic-tools.ts) over a real HTTP server on 127.0.0.1, raw fetch, as the
 * suite probes them: -32021 with HTTP 400 for an undeclared capability, an input round (never a
 * server→client request) on the response, no log message unless the request set a level.
 */
import { afterEach, expect, test } from 'vitest';
import { serveHttp, type HttpServing } from 'keel-mcp/node';
import type { JsonObject } from 'keel-mcp/core';
import { createFixtureServer } from '../../examples/fixture-server.js';
import { useProcessGuard, within } from '../helpers/guard.js';
import { post, SseReader } from './support/harness.js';

useProcessGuard();

const MODERN = '2026-07-28';

let serving: HttpServing | undefined;
afterEach(async () => {
  await serving?.close({ deadlineMs: 2_000 });
  serving = undefined;
});

async function start(): Promise<string> {
  serving = await serveHttp(createFixtureServer(), { port: 0, keepAliveMs: 0 });
  return serving.url;
}

/** A conforming 2026-07-28 `tools/call` (body `_meta` and the headers that mirror it). */
function callTool(url: string, id: number, name: string, meta: JsonObject): Promise<Response> {
  const body = {
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: {
      name,
      arguments: {},
      _meta: {
        'io.modelcontextprotocol/protocolVersion': MODERN,
        'io.modelcontextprotocol/clientCapabilities': {},
        ...meta,
      },
    },
  };
  const headers = { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': name };
  return post(url, body, { headers });
}

/** Every JSON-RPC message of a response, whether it came as JSON or as an SSE stream. */
async function messages(response: Response): Promise<JsonObject[]> {
  if (response.headers.get('content-type') === 'application/json')
    return [(await response.json()) as JsonObject];
  expect(response.headers.get('content-type')).toBe('text/event-stream');
  const reader = new SseReader(response);
  const all: JsonObject[] = [];
  // Bounded: the fixture tools send at most one message before their answer.
  for (let i = 0; i < 5; i++) {
    const next = await within(reader.nextMessage(), 5_000, 'event');
    if (next === undefined) return all;
    all.push(next);
  }
  throw new Error('more messages than any diagnostic tool sends');
}

test('tools/list names the three diagnostic tools', async () => {
  const url = await start();
  const body = {
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/list',
    params: {
      _meta: {
        'io.modelcontextprotocol/protocolVersion': MODERN,
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  };
  const response = await post(url, body, {
    headers: { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/list' },
  });
  const [list] = await messages(response);
  const names = ((list!.result as JsonObject).tools as JsonObject[]).map((tool) => tool.name);
  expect(
    names.filter((name) =>
      ['test_missing_capability', 'test_streaming_elicitation', 'test_logging_tool'].includes(name as string),
    ),
  ).toEqual(['test_missing_capability', 'test_streaming_elicitation', 'test_logging_tool']);
});

test('test_missing_capability without sampling declared: HTTP 400, -32021 naming { sampling: {} }', async () => {
  const url = await start();
  const response = await callTool(url, 2, 'test_missing_capability', {});
  expect(response.status).toBe(400);
  const [answer] = await messages(response);
  expect(answer).toMatchObject({
    jsonrpc: '2.0',
    id: 2,
    error: { code: -32021, data: { requiredCapabilities: { sampling: {} } } },
  });
  expect(answer!.result).toBeUndefined();
});

test('test_missing_capability with sampling declared: an input round asking for the sample', async () => {
  const url = await start();
  const caps = { 'io.modelcontextprotocol/clientCapabilities': { sampling: {} } };
  const response = await callTool(url, 3, 'test_missing_capability', caps);
  expect(response.status).toBe(200);
  const [answer] = await messages(response);
  expect(answer!.result).toMatchObject({
    resultType: 'input_required',
    inputRequests: { sample: { method: 'sampling/createMessage' } },
  });
});

test('test_streaming_elicitation: the response carries the input round only, no independent request', async () => {
  const url = await start();
  const caps = { 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } };
  const response = await callTool(url, 4, 'test_streaming_elicitation', caps);
  expect(response.status).toBe(200);
  const all = await messages(response);
  expect(all).toHaveLength(1);
  expect(all[0]).toMatchObject({
    id: 4,
    result: { resultType: 'input_required', inputRequests: { continue: { method: 'elicitation/create' } } },
  });
  expect(all[0]!.method).toBeUndefined();
});

test('test_logging_tool without a log level: the result alone, no notifications/message', async () => {
  const url = await start();
  const all = await messages(await callTool(url, 5, 'test_logging_tool', {}));
  expect(all).toEqual([
    expect.objectContaining({
      id: 5,
      result: expect.objectContaining({ content: [{ type: 'text', text: 'Logged' }] }),
    }),
  ]);
});

test('test_logging_tool with a log level: exactly one notifications/message, then the result', async () => {
  const url = await start();
  const all = await messages(
    await callTool(url, 6, 'test_logging_tool', { 'io.modelcontextprotocol/logLevel': 'info' }),
  );
  expect(all.map((message) => message.method ?? message.id)).toEqual(['notifications/message', 6]);
  expect(all[0]!.params).toMatchObject({ level: 'info', data: 'test_logging_tool ran' });
});
