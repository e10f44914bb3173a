/**
 * Issue 26 part 1: the lifecycle contract holds through interceptors. Whatever an interceptor
 * does (ignore the signal, answer late, short-circuit after a cancel, call `next()` after the
 * abort, never settle), a cancelled or disconnected request still aborts its handler, gets at most
 * one answer (none after a cancel), and nothing is written after close. Both eras, on a raw peer
 * (no client wrapper that could hide an engine bug).
 */
import { afterEach, describe, expect, test } from 'vitest';
import type { JsonObject } from 'keel-mcp/core';
import { McpServer, type ServerInterceptor, type ServerSession } from 'keel-mcp/server';
import { useProcessGuard, within } from '../helpers/guard.js';
import {
  aborted,
  deferred,
  expectCleanWire,
  rawPair,
  responsesFor,
  settle,
  type RawPeer,
} from '../lifecycle/support/raw-peer.js';
import type { RecordingTransport } from '../helpers/recording-transport.js';
import { meta } from '../modern/harness.js';

const guard = useProcessGuard();

const open: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of open.splice(0)) await close();
});

interface Rig {
  peer: RawPeer;
  serverSide: RecordingTransport;
  session: ServerSession;
  /** Resolves with the tool handler's abort reason once its signal aborts. */
  handlerAborted: Promise<unknown>;
  handlerStarted: Promise<void>;
  handlerRuns: () => number;
  call(id: number): Promise<void>;
}

/** A server whose `hold` tool waits for its abort; `interceptor` registered; the peer handshaken. */
async function rig(era: 'legacy' | 'modern', interceptor: ServerInterceptor): Promise<Rig> {
  const server = new McpServer({ name: 'lifecycle', version: '1' }, { onerror: undefined });
  const abortedReason = deferred<unknown>();
  const started = deferred();
  let runs = 0;
  server.tool('hold', { description: 'waits for its abort' }, async (_args, ctx) => {
    runs++;
    started.resolve();
    abortedReason.resolve(await aborted(ctx.signal));
    return 'never seen';
  });
  server.use(interceptor);
  const { peer, serverSide } = rawPair();
  const session = server.connect(serverSide);
  open.push(async () => {
    await peer.transport.close();
    await within(session.closed, 5_000, 'session.closed');
  });
  if (era === 'legacy') await peer.initialize();
  const params = (): JsonObject =>
    era === 'legacy' ? { name: 'hold', arguments: {} } : { name: 'hold', arguments: {}, _meta: meta() };
  return {
    peer,
    serverSide,
    session,
    handlerAborted: abortedReason.promise,
    handlerStarted: started.promise,
    handlerRuns: () => runs,
    call: (id) => peer.request('tools/call', params(), id),
  };
}

/** Wait until the gate of a late interceptor opened and everything it queued ran. */
async function drain(gate: { resolve(): void }): Promise<void> {
  gate.resolve();
  for (let i = 0; i < 5; i++) await settle();
}

describe.each(['legacy', 'modern'] as const)('%s era', (era) => {
  test('a peer cancel aborts the handler and no answer is written, though the interceptor ignores the signal and answers late', async () => {
    const late = deferred();
    const r = await rig(era, async (call, next) => {
      if (call.method !== 'tools/call') return next();
      await next().catch(() => undefined);
      await late.promise; // ignores the signal on purpose
      return { content: [{ type: 'text', text: 'late answer' }] };
    });
    await r.call(7);
    await within(r.handlerStarted, 5_000, 'handler started');
    await r.peer.cancel(7, 'changed my mind');
    const reason = await within(r.handlerAborted, 5_000, 'handler aborted');
    expect(reason).toBeInstanceOf(Error);
    await drain(late);
    expect(responsesFor(r.serverSide.sent, 7)).toEqual([]);
    expectCleanWire(r.serverSide, [7]);
  });

  test('a short-circuit after the cancel writes nothing either', async () => {
    const r = await rig(era, async (call, next) => {
      if (call.method !== 'tools/call') return next();
      await aborted(call.signal!);
      return { content: [{ type: 'text', text: 'answer after cancel' }] };
    });
    await r.call(8);
    await settle();
    await r.peer.cancel(8);
    for (let i = 0; i < 5; i++) await settle();
    expect(r.handlerRuns()).toBe(0);
    expect(responsesFor(r.serverSide.sent, 8)).toEqual([]);
    expectCleanWire(r.serverSide, [8]);
  });

  test('next() after the abort rejects with the abort reason and never starts the handler', async () => {
    const outcome = deferred<unknown>();
    const r = await rig(era, async (call, next) => {
      if (call.method !== 'tools/call') return next();
      await aborted(call.signal!);
      outcome.resolve(
        await next().then(
          () => 'resolved',
          (error: unknown) => error,
        ),
      );
      return {};
    });
    await r.call(9);
    await settle();
    await r.peer.cancel(9);
    const error = await within(outcome.promise, 5_000, 'next() outcome');
    expect(error).toBeInstanceOf(Error);
    expect(r.handlerRuns()).toBe(0);
    expectCleanWire(r.serverSide, [9]);
  });

  test('a disconnect aborts the handler; an interceptor that answers after it writes nothing after close', async () => {
    const late = deferred();
    const r = await rig(era, async (call, next) => {
      if (call.method !== 'tools/call') return next();
      await next().catch(() => undefined);
      await late.promise;
      return { content: [] };
    });
    await r.call(10);
    await within(r.handlerStarted, 5_000, 'handler started');
    await r.peer.transport.close();
    await within(r.handlerAborted, 5_000, 'handler aborted by the disconnect');
    await within(r.session.closed, 5_000, 'session closed');
    await drain(late);
    expect(r.serverSide.sentAfterClose).toEqual([]);
    expect(responsesFor(r.serverSide.sent, 10)).toEqual([]);
  });

  test('an interceptor that never settles does not keep the connection from closing', async () => {
    const r = await rig(era, (call, next) =>
      call.method === 'tools/call' ? new Promise<JsonObject>(() => {}) : next(),
    );
    await r.call(11);
    await settle();
    await r.peer.transport.close();
    await within(r.session.closed, 5_000, 'session closed with a hung interceptor');
    expect(r.serverSide.sentAfterClose).toEqual([]);
    expect(r.handlerRuns()).toBe(0);
  });

  test('one answer per request when the interceptor and the handler both finish', async () => {
    const r = await rig(era, async (call, next) => {
      if (call.method !== 'tools/call' || call.params.name !== 'quick') return next();
      const result = await next();
      return { ...result, _meta: { wrapped: true } };
    });
    await r.peer.request(
      'tools/call',
      era === 'legacy' ? { name: 'quick' } : { name: 'quick', _meta: meta() },
      12,
    );
    const answer = await r.peer.readUntil((m) => m.id === 12, 'the answer to 12');
    expect('error' in answer || 'result' in answer).toBe(true);
    for (let i = 0; i < 3; i++) await settle();
    expectCleanWire(r.serverSide);
    expect(guard.unhandled).toEqual([]);
  });
});
