/**
 * Scenario 22: shutting the server down with live streams aborts handlers, ends every stream
 * cleanly, and resolves within the deadline.
 */
import { expect, test } from 'vitest';
import { ConnectionClosedError } from 'keel-mcp/core';
import { Server } from 'keel-mcp/server';
import { createHttpHandler } from 'keel-mcp/http';
import { useProcessGuard, within } from '../helpers/guard.js';
import {
  callTool,
  initializeRequest,
  JSON_AND_SSE,
  openSession,
  post,
  SseReader,
  startHarness,
} from './support/harness.js';

useProcessGuard();

// DESIGN.md "Ending HTTP streams": the server ended the session, so each unanswered request on an
// open stream gets one -32000 before its stream ends, whatever answerOnClose says.
test.each([{ answerOnClose: true }, { answerOnClose: false }])(
  'close() with live POST and GET streams aborts handlers, answers each open request with one -32000 and ends every stream in time (answerOnClose: $answerOnClose)',
  async ({ answerOnClose }) => {
    const ended: string[] = [];
    const h = await startHarness({
      connection: { answerOnClose },
      onSessionEnd: (_id, reason) => ended.push(reason),
    });
    let closed = false;
    try {
      const one = await openSession(h.url);
      const two = await openSession(h.url);
      const blocked = new SseReader(
        await post(h.url, callTool(1, 'block', { key: 'a' }), { sessionId: one }),
      );
      const gated = new SseReader(await post(h.url, callTool(2, 'gated', { key: 'b' }), { sessionId: two }));
      const get = await fetch(h.url, { headers: { accept: 'text/event-stream', 'mcp-session-id': one } });
      expect(get.status).toBe(200);
      const standalone = new SseReader(get);
      await within(blocked.nextMessage(), 5_000, 'elicitation');
      await within(gated.nextMessage(), 5_000, 'first log');
      await within(standalone.next(), 5_000, 'GET priming');

      await within(h.close(), 3_000, 'server close');
      closed = true;

      const reasons = await within(
        Promise.all([
          h.probes.for(h.probes.aborted, 'a').promise,
          h.probes.for(h.probes.aborted, 'b').promise,
        ]),
      );
      for (const reason of reasons) expect(reason).toBeInstanceOf(ConnectionClosedError);
      for (const [stream, id] of [
        [blocked, 1],
        [gated, 2],
      ] as const) {
        expect(await within(stream.rest(), 5_000, 'stream end')).toEqual([
          { jsonrpc: '2.0', id, error: { code: -32000, message: 'Connection closed' } },
        ]);
        expect(stream.done).toBe(true);
      }
      expect(await within(standalone.rest(), 5_000, 'GET end')).toEqual([]);
      expect(ended.sort()).toEqual(['shutdown', 'shutdown']);
      expect(h.serving.handler.sessionCount).toBe(0);
      expect(h.server.sessions.size).toBe(0);
      await expect(fetch(h.url, { method: 'POST' })).rejects.toThrow(); // not listening any more
    } finally {
      if (!closed) await h.close();
    }
  },
);

test('requests during shutdown get 503 and close() is idempotent', async () => {
  const server = new Server({ name: 's', version: '1' });
  const handler = createHttpHandler(server, { keepAliveMs: 0 });
  const init = await handler(
    new Request('http://127.0.0.1/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: JSON_AND_SSE },
      body: JSON.stringify(initializeRequest()),
    }),
  );
  expect(init.status).toBe(200);
  expect(handler.sessionCount).toBe(1);
  const closing = handler.close({ deadlineMs: 1_000 });
  expect(handler.close()).toBe(closing);
  const late = await handler(
    new Request('http://127.0.0.1/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: JSON_AND_SSE },
      body: JSON.stringify(initializeRequest()),
    }),
  );
  expect(late.status).toBe(503);
  expect(((await late.json()) as { error: { code: number } }).error.code).toBe(-32000);
  await within(closing, 2_000, 'handler close');
  expect(handler.sessionCount).toBe(0);
});
