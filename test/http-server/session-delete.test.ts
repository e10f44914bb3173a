/**
 * Scenario 19: a session DELETE while two handlers are blocked on a back-channel request aborts
 * both, answers and ends both POST streams, and the session id answers 404 afterwards.
 */
import { expect, test } from 'vitest';
import { ConnectionClosedError } from 'keel-mcp/core';
import { useProcessGuard, within } from '../helpers/guard.js';
import { callTool, openSession, ping, post, SseReader, startHarness } from './support/harness.js';

useProcessGuard();

// DESIGN.md "Ending HTTP streams" (issue 23 item 1): the DELETE may come from another holder of
// the session id than the client waiting, so each open stream gets its one -32000, whatever the
// connection's answerOnClose option says.
test.each([{ answerOnClose: true }, { answerOnClose: false }, { answerOnClose: undefined }])(
  'DELETE aborts blocked handlers, answers each stream once with -32000 then ends it (answerOnClose: $answerOnClose), later requests get 404',
  async ({ answerOnClose }) => {
    const h = await startHarness({ connection: { answerOnClose } });
    try {
      const sessionId = await openSession(h.url);
      const a = await post(h.url, callTool(1, 'block', { key: 'a' }), { sessionId });
      const b = await post(h.url, callTool(2, 'block', { key: 'b' }), { sessionId });
      expect(a.headers.get('content-type')).toBe('text/event-stream');
      expect(b.headers.get('content-type')).toBe('text/event-stream');
      const streamA = new SseReader(a);
      const streamB = new SseReader(b);
      // Each handler's elicitation goes on its own POST stream.
      expect((await within(streamA.nextMessage(), 5_000, 'elicitation on A'))?.method).toBe(
        'elicitation/create',
      );
      expect((await within(streamB.nextMessage(), 5_000, 'elicitation on B'))?.method).toBe(
        'elicitation/create',
      );
      expect(h.serving.handler.sessionCount).toBe(1);

      const deleted = await fetch(h.url, { method: 'DELETE', headers: { 'mcp-session-id': sessionId } });
      expect(deleted.status).toBe(200);

      const reasons = await within(
        Promise.all([
          h.probes.for(h.probes.aborted, 'a').promise,
          h.probes.for(h.probes.aborted, 'b').promise,
        ]),
        5_000,
        'handler aborts',
      );
      for (const reason of reasons) expect(reason).toBeInstanceOf(ConnectionClosedError);

      // Each stream: its one shutdown answer, then the end.
      for (const [id, stream] of [
        [1, streamA],
        [2, streamB],
      ] as const) {
        expect(await within(stream.rest(), 5_000, 'stream end')).toEqual([
          { jsonrpc: '2.0', id, error: { code: -32000, message: 'Connection closed' } },
        ]);
        expect(stream.done).toBe(true);
      }

      expect((await post(h.url, { jsonrpc: '2.0', id: 9, method: 'ping' }, { sessionId })).status).toBe(404);
      const get = await fetch(h.url, {
        headers: { accept: 'text/event-stream', 'mcp-session-id': sessionId },
      });
      expect(get.status).toBe(404);
      expect(((await get.json()) as { error: { code: number } }).error.code).toBe(-32600);
      const again = await fetch(h.url, { method: 'DELETE', headers: { 'mcp-session-id': sessionId } });
      expect(again.status).toBe(404);
      await again.body?.cancel();

      expect(h.serving.handler.sessionCount).toBe(0);
      expect(h.server.sessions.size).toBe(0);
      const next = await openSession(h.url);
      expect(next).not.toBe(sessionId);
      expect(await ping(h.url, next)).toMatchObject({ result: {} });
      expect(h.serving.handler.sessionCount).toBe(1);
    } finally {
      await h.close();
    }
  },
);

test('DELETE of an idle session ends it and reports why', async () => {
  const ended: string[] = [];
  const h = await startHarness({ onSessionEnd: (id, reason) => ended.push(`${id}:${reason}`) });
  try {
    const sessionId = await openSession(h.url);
    const deleted = await fetch(h.url, { method: 'DELETE', headers: { 'mcp-session-id': sessionId } });
    expect(deleted.status).toBe(200);
    expect(ended).toEqual([`${sessionId}:deleted`]);
    expect(h.serving.handler.sessionCount).toBe(0);
  } finally {
    await h.close();
  }
});
