/**
 * DESIGN.md "Ending HTTP streams" (issue 9 item 4, HTTP part; issue 23 item 1): however a session
 * ends (DELETE, expiry, shutdown), each unanswered request gets one `-32000 Connection closed`,
 * written to its stream before the stream ends. (Streams with a reader attached:
 * session-delete.test.ts, delete-while-waiting.test.ts and shutdown.test.ts.) Here the client has
 * dropped its POST connection, so what the server writes lands in the event store, which records
 * it.
 */
import { expect, test } from 'vitest';
import type { JsonRpcMessage } from 'keel-mcp/core';
import { createHttpHandler, InMemoryEventStore, type SessionEndReason } from 'keel-mcp/http';
import { useProcessGuard, within } from '../helpers/guard.js';
import { call, ENDPOINT, initialize } from './support/direct.js';
import { callTool, createTestServer, deferred, Probes, SseReader } from './support/harness.js';

useProcessGuard();

/** The default store, recording every message the server stored. */
class RecordingStore extends InMemoryEventStore {
  readonly stored: JsonRpcMessage[] = [];
  override storeEvent(streamId: string, message: JsonRpcMessage | undefined, data?: string): string {
    if (message) this.stored.push(message);
    return super.storeEvent(streamId, message, data);
  }
}

/** `answerOnClose`: the connection option, which the way the session ends overrides. */
async function blockedSessionWithoutReader(idleMs: number, answerOnClose: boolean) {
  const probes = new Probes();
  const store = new RecordingStore();
  const ended = deferred<SessionEndReason>();
  const handler = createHttpHandler(createTestServer(probes), {
    keepAliveMs: 0,
    eventStore: store,
    sessions: { idleMs },
    connection: { answerOnClose },
    onSessionEnd: (_id, reason) => ended.resolve(reason),
  });
  const sessionId = await initialize(handler);
  const client = new AbortController();
  const stream = new SseReader(
    await call(handler, callTool(1, 'block', { key: 'b' }), { sessionId, signal: client.signal }),
  );
  expect(await within(stream.nextMessage())).toMatchObject({ method: 'elicitation/create' });
  // The client drops the connection; the stream stays resumable and the handler stays blocked.
  client.abort();
  await stream.cancel();
  return { handler, store, probes, ended, sessionId };
}

const connectionClosed = (stored: JsonRpcMessage[]) =>
  stored.filter((m) => 'error' in m && (m as { error: { code: number } }).error.code === -32000);

test('DELETE: the blocked request gets exactly one -32000 Connection closed on its stream', async () => {
  const { handler, store, probes, ended, sessionId } = await blockedSessionWithoutReader(60_000, false);
  try {
    // The session's end outlives the DELETE's reply: the host's waitUntil tells when it is over.
    const background: Promise<unknown>[] = [];
    const deleted = await handler(
      new Request(ENDPOINT, { method: 'DELETE', headers: { 'mcp-session-id': sessionId } }),
      { waitUntil: (promise) => void background.push(promise) },
    );
    expect(deleted.status).toBe(200);
    expect(await within(ended.promise)).toBe('deleted');
    await within(probes.for(probes.aborted, 'b').promise);
    await within(Promise.all(background), 5_000, 'the session end');
    expect(store.stored.map((m) => ('method' in m ? m.method : m.id))).toEqual(['elicitation/create', 1]);
    expect(connectionClosed(store.stored)).toEqual([
      { jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'Connection closed' } },
    ]);
  } finally {
    await handler.close();
  }
});

test('expiry: the blocked request gets exactly one -32000 Connection closed on its stream', async () => {
  const { handler, store, probes, ended } = await blockedSessionWithoutReader(30, false);
  try {
    expect(await within(ended.promise, 5_000, 'expiry')).toBe('expired');
    await within(probes.for(probes.aborted, 'b').promise);
    expect(connectionClosed(store.stored)).toEqual([
      { jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'Connection closed' } },
    ]);
  } finally {
    await handler.close();
  }
});

test('shutdown: the blocked request gets exactly one -32000 Connection closed on its stream', async () => {
  const { handler, store, probes, ended } = await blockedSessionWithoutReader(60_000, false);
  await within(handler.close(), 5_000, 'shutdown');
  expect(await within(ended.promise)).toBe('shutdown');
  await within(probes.for(probes.aborted, 'b').promise);
  expect(connectionClosed(store.stored)).toHaveLength(1);
});
