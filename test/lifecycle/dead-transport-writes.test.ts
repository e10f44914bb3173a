/**
 * Guarantee 7: a response or notification that meets a dead transport (closed by the peer, broken
 * like EPIPE, or closed locally) is dropped and logged at debug level, never thrown.
 */
import { expect, test } from 'vitest';
import { McpError } from 'keel-mcp/core';
import { useProcessGuard, within } from '../helpers/guard.js';
import { deferred, expectCleanWire, settle } from './support/raw-peer.js';
import { call, text, toolServer } from './support/tool-server.js';

useProcessGuard();

type Breakage = 'the peer stops reading' | 'the write side breaks (EPIPE)';

for (const breakage of ['the peer stops reading', 'the write side breaks (EPIPE)'] as Breakage[]) {
  test(`python-sdk#2306: responses written after ${breakage} are dropped and the session exits cleanly on EOF`, async () => {
    const gates = { ok: deferred(), fails: deferred() };
    const started = { ok: deferred(), fails: deferred() };
    const { peer, peerSide, serverSide, session, logs } = await toolServer({
      ok: async () => {
        started.ok.resolve();
        await gates.ok.promise;
        return text('fine');
      },
      fails: async (_a, ctx) => {
        started.fails.resolve();
        await gates.fails.promise;
        await ctx.progress(1); // a notification on the dead side, too
        throw new McpError(4242, 'tool failed');
      },
    });
    await peer.request('tools/call', call('ok'), 1);
    await peer.request('tools/call', { ...call('fails'), _meta: { progressToken: 'p' } }, 2);
    await within(Promise.all([started.ok.promise, started.fails.promise]), 5_000, 'start');
    const before = serverSide.sent.length;

    if (breakage === 'the peer stops reading') peerSide.endInput();
    else serverSide.breakOutput();
    gates.ok.resolve();
    gates.fails.resolve();
    await settle();
    expect(session.connection.isOpen).toBe(true); // still healthy, still reading
    await session.connection.notify('notifications/message', { level: 'info', data: 'dropped' });

    serverSide.endInput();
    await within(session.closed, 5_000, 'session.closed');
    expect(serverSide.sent.length).toBe(before);
    expect(logs.filter((l) => l.level === 'error')).toEqual([]);
    expect(logs.some((l) => l.level === 'debug' && l.message.startsWith('dropped'))).toBe(true);
    expectCleanWire(serverSide);
  });
}

test('answers of handlers that finish after a local close are dropped, the close stays clean', async () => {
  const gate = deferred();
  const started = deferred();
  const { peer, serverSide, session, logs } = await toolServer({
    slow: async () => {
      started.resolve();
      await gate.promise;
      return text('late');
    },
  });
  await peer.request('tools/call', call('slow'), 1);
  await within(started.promise, 5_000, 'start');
  await session.close(); // the local write side is now closed
  const after = serverSide.sent.length;

  gate.resolve();
  await settle();

  // Shutdown answered the request once (write side was open at the time); the late result is dropped.
  expect(serverSide.sent.slice(0, after).filter((m) => 'id' in m && m.id === 1)).toHaveLength(1);
  expect(serverSide.sent.length).toBe(after);
  expect(logs.filter((l) => l.level === 'error')).toEqual([]);
  expectCleanWire(serverSide);
});
