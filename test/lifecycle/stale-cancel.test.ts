/**
 * Review fix (brief SF item 5): a `notifications/cancelled` that names no live request is dropped
 * by the engine, as before 2026-07-28 support; the one exception is a cancel naming one of OUR
 * requests still waiting for its answer (a 2026-07-28 server on stdio tears down the client's
 * `subscriptions/listen` that way), which goes on to the notification handlers.
 */
import { afterEach, expect, test } from 'vitest';
import { Connection, type JsonObject } from 'keel-mcp/core';
import { createMemoryPair } from 'keel-mcp/memory';
import { useProcessGuard, within } from '../helpers/guard.js';

useProcessGuard();

const opened: Connection[] = [];
afterEach(async () => {
  for (const c of opened.splice(0)) await within(c.close(), 2_000, 'close');
});

/**
 * Two connected engines; `seen` records every notification `local`'s handlers are handed, and
 * `marked` resolves when `notifications/marker` arrives: sent after the messages under test, on
 * the same ordered channel, it proves they were routed.
 */
function pair(): {
  local: Connection;
  peer: Connection;
  seen: { method: string; params: JsonObject }[];
  marked: Promise<void>;
} {
  const [a, b] = createMemoryPair();
  const local = new Connection(a);
  const peer = new Connection(b);
  opened.push(local, peer);
  const seen: { method: string; params: JsonObject }[] = [];
  let mark!: () => void;
  const marked = new Promise<void>((resolve) => (mark = resolve));
  local.fallbackNotificationHandler = (params, _info, method) => {
    seen.push({ method, params });
    if (method === 'notifications/marker') mark();
  };
  void local.start();
  void peer.start();
  return { local, peer, seen, marked: within(marked, 2_000, 'marker') };
}

test('a cancel naming no request at all never reaches the notification handlers', async () => {
  const { peer, seen, marked } = pair();
  await peer.notify('notifications/cancelled', { requestId: 'nobody', reason: 'late' });
  await peer.notify('notifications/cancelled', { requestId: 12345 });
  // A marker sent after them: once it arrived, the cancels were routed (same ordered channel).
  await peer.notify('notifications/marker', {});
  await marked;
  expect(seen.map((n) => n.method)).toEqual(['notifications/marker']);
});

test('a cancel for a request the peer made of us that was already answered is dropped too', async () => {
  const { local, peer, seen, marked } = pair();
  local.setRequestHandler('quick', () => ({ ok: true }));
  // The peer's request is answered; its late cancel names nothing live any more.
  await within(peer.request('quick', {}));
  await peer.notify('notifications/cancelled', { requestId: 0, reason: 'too late' });
  await peer.notify('notifications/marker', {});
  await marked;
  expect(seen.map((n) => n.method)).toEqual(['notifications/marker']);
});

test('a cancel naming one of our requests still pending goes on to the handlers, exactly once', async () => {
  const { local, peer, seen, marked } = pair();
  let ourId: string | number | undefined;
  peer.setRequestHandler('subscriptions/listen', () => new Promise(() => undefined));
  const controller = new AbortController();
  const pending = local.request(
    'subscriptions/listen',
    {},
    {
      signal: controller.signal,
      timeoutMs: Infinity,
      maxTotalTimeoutMs: Infinity,
      onRequestId: (id) => void (ourId = id),
    },
  );
  pending.catch(() => undefined);
  expect(ourId).toBeDefined();
  await peer.notify('notifications/cancelled', { requestId: ourId!, reason: 'server teardown' });
  await peer.notify('notifications/marker', {});
  await marked;
  expect(seen).toEqual([
    { method: 'notifications/cancelled', params: { requestId: ourId, reason: 'server teardown' } },
    { method: 'notifications/marker', params: {} },
  ]);
  controller.abort();
  await expect(pending).rejects.toThrow();
});
