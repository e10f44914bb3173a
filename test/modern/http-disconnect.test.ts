/**
 * Lifecycle scenario 21 and the modern halves of guarantees 2, 12 and 16 over real HTTP
 * (serveHttp on 127.0.0.1, raw fetch as the 2026-07-28 client):
 * - closing a modern request's response stream cancels exactly that request: its handler aborts at
 *   once with a peer-cancel reason (CancelledByPeerError), nothing more is written for it (not its
 *   late progress, not its result), no `notifications/cancelled` is needed, and a concurrent request
 *   on another POST completes (scenario 21, guarantees 12 and 16);
 * - teardown (server shutdown) aborts with ConnectionClosedError instead (guarantee 2);
 * - a legacy session's dropped stream is not a cancel, on the same endpoint (guarantee 16).
 */
import { afterEach, expect, test } from 'vitest';
import { serveHttp, type HttpServing } from 'keel-mcp/node';
import type { JsonObject } from 'keel-mcp/core';
import { useProcessGuard, within } from '../helpers/guard.js';
import { callTool, openSession, post, SseReader } from '../http-server/support/harness.js';
import { meta, MODERN } from './harness.js';
import { Recorded } from './support/recorded-server.js';

useProcessGuard();

let serving: HttpServing | undefined;
afterEach(async () => {
  await serving?.close({ deadlineMs: 2_000 });
  serving = undefined;
});

async function start(): Promise<{ url: string; recorded: Recorded }> {
  const recorded = new Recorded();
  serving = await serveHttp(recorded.target, { port: 0, keepAliveMs: 0 });
  return { url: serving.url, recorded };
}

/** A modern tools/call with a progress token, as a conforming client sends it. */
function modernCall(url: string, id: number, name: string, args: JsonObject, signal?: AbortSignal) {
  const body = {
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name, arguments: args, _meta: meta({ progressToken: `t${id}` }) },
  };
  const headers = { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': name };
  return post(url, body, { headers, signal });
}

/** Open a `hold` call and read its first progress event: the handler is parked on its gate. */
async function openHold(url: string, id: number, key: string, stubborn = false) {
  const controller = new AbortController();
  const response = await modernCall(url, id, 'hold', { key, stubborn }, controller.signal);
  expect(response.headers.get('content-type')).toBe('text/event-stream');
  const reader = new SseReader(response);
  expect(await within(reader.nextMessage(), 5_000, `${key} progress`)).toMatchObject({
    method: 'notifications/progress',
    params: { progressToken: `t${id}`, progress: 0 },
  });
  return { controller, reader };
}

async function release(url: string, id: number, key: string): Promise<void> {
  const response = await modernCall(url, id, 'release', { key });
  expect(((await response.json()) as JsonObject).result).toMatchObject({
    content: [{ type: 'text', text: `released ${key}` }],
  });
}

test('scenario 21: closing the stream aborts that handler alone, with a peer-cancel reason, and nothing more is written for it', async () => {
  const { url, recorded } = await start();
  const a = await openHold(url, 1, 'a', true);
  const b = await openHold(url, 2, 'b');
  await recorded.event('started', 'a');

  a.controller.abort();
  expect(await recorded.event('aborted', 'a')).toEqual({
    event: 'aborted',
    key: 'a',
    reason: 'CancelledByPeerError',
  });

  // The stubborn handler carries on after its abort: a late progress and a result, both dropped.
  await release(url, 3, 'a');
  await recorded.event('after', 'a');
  // b, on its own POST, is untouched and completes with its own late progress and result.
  await release(url, 4, 'b');
  expect(await within(b.reader.nextMessage(), 5_000, 'b late progress')).toMatchObject({
    params: { progressToken: 't2', progress: 1 },
  });
  expect(await within(b.reader.nextMessage(), 5_000, 'b result')).toMatchObject({
    id: 2,
    result: { content: [{ type: 'text', text: 'held b' }] },
  });
  expect(await within(b.reader.nextMessage(), 5_000, 'b end')).toBeUndefined();
  // b's result was sent after a's handler went on: had a's been sent, it would be recorded by now.
  expect(recorded.sentFor(1, 't1')).toEqual([
    expect.objectContaining({
      method: 'notifications/progress',
      params: expect.objectContaining({ progress: 0 }),
    }),
  ]);
  expect(
    recorded.sent.filter((m) => (m as unknown as JsonObject).method === 'notifications/cancelled'),
  ).toEqual([]);
  expect(recorded.count('aborted', 'a')).toBe(1);
  expect(recorded.count('aborted', 'b')).toBe(0);
});

test('guarantee 2: a server shutdown aborts a modern handler as teardown (ConnectionClosedError), not as a cancel', async () => {
  const { url, recorded } = await start();
  const a = await openHold(url, 1, 'a');
  await recorded.event('started', 'a');
  await serving!.close({ deadlineMs: 2_000 });
  serving = undefined;
  expect(await recorded.event('aborted', 'a')).toEqual({
    event: 'aborted',
    key: 'a',
    reason: 'ConnectionClosedError',
  });
  // A shutdown answers what is unanswered with one `-32000 Connection closed` (docs/http.md), never a result.
  expect(await within(a.reader.nextMessage(), 5_000, 'a answer')).toMatchObject({
    id: 1,
    error: { code: -32000 },
  });
  expect(await within(a.reader.nextMessage(), 5_000, 'a end')).toBeUndefined();
  expect(recorded.sentFor(1, 't1').filter((m) => !('method' in m))).toEqual([
    expect.objectContaining({ error: expect.objectContaining({ code: -32000 }) }),
  ]);
});

test('guarantee 16: on one endpoint a legacy stream drop is not a cancel, a modern stream close is', async () => {
  const { url, recorded } = await start();
  const sessionId = await openSession(url);
  const legacyAbort = new AbortController();
  const legacyBody = callTool(10, 'hold', { key: 'legacy' });
  (legacyBody.params as JsonObject)._meta = { progressToken: 'legacy' };
  const legacy = await post(url, legacyBody, { sessionId, signal: legacyAbort.signal });
  const legacyReader = new SseReader(legacy);
  await within(legacyReader.nextMessage(), 5_000, 'legacy progress');
  const modern = await openHold(url, 11, 'modern');

  legacyAbort.abort();
  modern.controller.abort();
  expect(await recorded.event('aborted', 'modern')).toMatchObject({ reason: 'CancelledByPeerError' });
  // The legacy handler still runs: released, it finishes (its result goes to the event store or nowhere).
  await release(url, 12, 'legacy');
  await recorded.event('after', 'legacy');
  expect(recorded.count('aborted', 'legacy')).toBe(0);
});
