/**
 * Issue 26 part 1: over Streamable HTTP, a 2026-07-28 client that goes away mid-call (its POST
 * aborted: closing the response stream is the cancel in that era) still aborts the handler behind
 * an interceptor that ignores the signal and answers late; the late answer goes nowhere, nothing
 * fails in the process, and the server serves the next call.
 */
import { afterEach, expect, test } from 'vitest';
import type { JsonObject } from 'keel-mcp/core';
import { serveHttp, type HttpServing } from 'keel-mcp/node';
import { McpServer } from 'keel-mcp/server';
import { useProcessGuard, within } from '../helpers/guard.js';
import { post } from '../http-server/support/harness.js';
import { aborted, deferred } from '../lifecycle/support/raw-peer.js';
import { meta } from '../modern/harness.js';

useProcessGuard();

let serving: HttpServing | undefined;
afterEach(async () => {
  await serving?.close({ deadlineMs: 2_000 });
  serving = undefined;
});

const headers = (name: string) => ({
  'mcp-protocol-version': '2026-07-28',
  'mcp-method': 'tools/call',
  'mcp-name': name,
});
const body = (id: number, name: string): JsonObject => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: {}, _meta: meta() },
});

test('an aborted 2026-07-28 POST aborts the handler behind an interceptor that answers late; the next call is served', async () => {
  const server = new McpServer({ name: 'http-lifecycle', version: '1' }, { onerror: undefined });
  const started = deferred();
  const handlerAborted = deferred<unknown>();
  const late = deferred();
  const lateDone = deferred<unknown>();
  server.tool('hold', { description: 'waits for its abort' }, async (_args, ctx) => {
    started.resolve();
    handlerAborted.resolve(await aborted(ctx.signal));
    return 'never sent';
  });
  server.tool('quick', { description: 'answers at once' }, () => 'quick');
  server.use(async (call, next) => {
    if (call.params.name !== 'hold') return next();
    const outcome = await next().then(
      () => 'resolved',
      (error: unknown) => error,
    );
    await late.promise; // ignores the abort on purpose, then answers
    lateDone.resolve(outcome);
    return { content: [{ type: 'text', text: 'late' }] };
  });
  serving = await serveHttp(server, { port: 0, host: '127.0.0.1', path: '/mcp' });

  const controller = new AbortController();
  const first = post(serving.url, body(1, 'hold'), { headers: headers('hold'), signal: controller.signal });
  await within(started.promise, 5_000, 'handler started');
  controller.abort();
  await expect(first).rejects.toThrow();
  const reason = await within(handlerAborted.promise, 5_000, 'handler aborted by the closed stream');
  expect(reason).toBeInstanceOf(Error);
  late.resolve();
  // The handler's own outcome reached the interceptor (it returned after its abort).
  await within(lateDone.promise, 5_000, 'the late interceptor finished');

  const second = await post(serving.url, body(2, 'quick'), { headers: headers('quick') });
  expect(second.status).toBe(200);
  const text = await second.text();
  expect(text).toContain('"quick"');
  expect(text).not.toContain('late');
});
