/**
 * Issue 25: tasks over the 2026-07-28 HTTP binding: `Mcp-Name` mirrors `params.taskId` on
 * tasks/get|update|cancel (`-32020`, HTTP 400 on a mismatch or when missing), and a task made by
 * one request is read and cancelled by later ones (no session ties them).
 */
import { afterEach, expect, test } from 'vitest';
import { serveHttp, type HttpServing } from 'keel-mcp/node';
import { ErrorCode, type JsonObject } from 'keel-mcp/core';
import type { McpServer } from 'keel-mcp/server';
import { useProcessGuard } from '../helpers/guard.js';
import { post } from '../http-server/support/harness.js';
import { EXT, newServer } from './support.js';

useProcessGuard();

let serving: HttpServing | undefined;
let server: McpServer | undefined;
afterEach(async () => {
  await serving?.close({ deadlineMs: 2_000 });
  await server?.close();
  serving = undefined;
  server = undefined;
});

let nextId = 1;
function body(method: string, params: JsonObject): JsonObject {
  return {
    jsonrpc: '2.0',
    id: nextId++,
    method,
    params: {
      ...params,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': { extensions: { [EXT]: {} } },
      },
    },
  };
}

async function send(url: string, method: string, params: JsonObject, name?: string): Promise<Response> {
  const headers: Record<string, string> = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': method };
  if (name !== undefined) headers['mcp-name'] = name;
  return post(url, body(method, params), { headers });
}

async function setup(): Promise<string> {
  server = newServer();
  server.tool(
    'wait',
    { description: 'waits for cancel', execution: { taskSupport: 'required' } },
    (_a, ctx) =>
      new Promise((_resolve, reject) =>
        ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason as Error), { once: true }),
      ),
  );
  serving = await serveHttp(server, { port: 0, host: '127.0.0.1', path: '/mcp' });
  return serving.url;
}

test('Mcp-Name must mirror taskId on tasks/*: a mismatch or a missing header is -32020 / 400', async () => {
  const url = await setup();
  const created = (await (
    await send(url, 'tools/call', { name: 'wait', arguments: {} }, 'wait')
  ).json()) as JsonObject;
  const taskId = (created.result as JsonObject).taskId as string;
  expect(typeof taskId).toBe('string');
  const ok = await send(url, 'tasks/get', { taskId }, taskId);
  expect(ok.status).toBe(200);
  expect(((await ok.json()) as JsonObject).result).toMatchObject({ taskId, status: 'working' });
  for (const name of ['some-other-task', undefined]) {
    const refused = await send(url, 'tasks/get', { taskId }, name);
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as JsonObject).error).toMatchObject({ code: ErrorCode.HeaderMismatch });
  }
  const cancel = await send(url, 'tasks/cancel', { taskId }, taskId);
  expect(((await cancel.json()) as JsonObject).result).toMatchObject({ resultType: 'complete' });
  const after = await send(url, 'tasks/get', { taskId }, taskId);
  expect(((await after.json()) as JsonObject).result).toMatchObject({ status: 'cancelled' });
});
