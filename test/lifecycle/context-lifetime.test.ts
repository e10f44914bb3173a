/**
 * Guarantees 8 (nested requests follow their parent) and 11 (a handler's context dies with its
 * request): late back-channel use throws ContextClosedError, late notifications are dropped, late
 * progress never reaches the caller.
 */
import { expect, test } from 'vitest';
import {
  Connection,
  type RequestContext,
  CancelledByPeerError,
  ConnectionClosedError,
  ContextClosedError,
  RequestAbortedError,
} from 'keel-mcp/core';
import { createRecordingPair } from '../helpers/recording-transport.js';
import { useProcessGuard, within } from '../helpers/guard.js';
import { aborted, deferred, expectCleanWire, RawPeer, settle, withMethod } from './support/raw-peer.js';
import { call, text, toolServer } from './support/tool-server.js';

useProcessGuard();

test('a context used after its response: request throws ContextClosedError, notify and progress are dropped', async () => {
  let saved: RequestContext | undefined;
  const { peer, serverSide, session } = await toolServer({
    keep: (_a, ctx) => {
      saved = ctx;
      return text('done');
    },
  });
  await peer.request('tools/call', { ...call('keep'), _meta: { progressToken: 'tok' } }, 1);
  expect(await peer.read()).toMatchObject({ id: 1, result: text('done') });
  const before = serverSide.sent.length;

  expect(saved!.ended).toBe(true);
  await expect(saved!.request('roots/list', {})).rejects.toBeInstanceOf(ContextClosedError);
  await saved!.notify('notifications/message', { level: 'info', data: 'late' });
  await saved!.progress(2, 2, 'late');
  await settle();

  expect(serverSide.sent.length).toBe(before);
  await session.close();
  expectCleanWire(serverSide);
});

test('a context of a peer-cancelled request is dead at once: no progress, no back-channel', async () => {
  const cancelled = deferred<RequestContext>();
  const { peer, serverSide, session } = await toolServer({
    wait: async (_a, ctx) => {
      await aborted(ctx.signal);
      cancelled.resolve(ctx);
      return text('x');
    },
  });
  await peer.request('tools/call', { ...call('wait'), _meta: { progressToken: 7 } }, 1);
  await settle();
  await peer.cancel(1);
  const ctx = await within(cancelled.promise, 5_000, 'abort');
  const before = serverSide.sent.length;
  await ctx.progress(1);
  await expect(ctx.request('sampling/createMessage', {})).rejects.toBeInstanceOf(ContextClosedError);
  await settle();
  expect(serverSide.sent.length).toBe(before);
  await session.close();
  expectCleanWire(serverSide, [1]);
});

test('late progress for a finished call is not delivered to the caller', async () => {
  const [local, remote] = createRecordingPair();
  const connection = new Connection(local);
  void connection.start();
  const peer = new RawPeer(remote);
  const seen: number[] = [];
  const result = connection.request('work', {}, { onprogress: (p) => seen.push(p.progress) });
  const request = await peer.read();
  const token = (request.params?._meta as { progressToken: number }).progressToken;
  expect(token).toBe(request.id);
  await peer.notify('notifications/progress', { progressToken: token, progress: 1 });
  await peer.send({ id: request.id, result: {} });
  await peer.notify('notifications/progress', { progressToken: token, progress: 2 });
  await within(result, 5_000, 'result');
  await settle();
  expect(seen).toEqual([1]);
  await connection.close();
  expectCleanWire(local);
});

test('a throwing progress callback is contained and the call still completes', async () => {
  const [local, remote] = createRecordingPair();
  const connection = new Connection(local);
  void connection.start();
  const peer = new RawPeer(remote);
  const result = connection.request(
    'work',
    {},
    {
      onprogress: () => {
        throw new Error('bad callback');
      },
    },
  );
  const request = await peer.read();
  await peer.notify('notifications/progress', { progressToken: request.id, progress: 1 });
  await peer.send({ id: request.id, result: { ok: 1 } });
  expect(await within(result, 5_000, 'result')).toEqual({ ok: 1 });
  await connection.close();
  expectCleanWire(local);
});

test('nested requests follow their parent: a peer cancel of the parent cancels the child on the wire at once', async () => {
  const childError = deferred<unknown>();
  const parentReason = deferred<unknown>();
  const { peer, serverSide, session } = await toolServer({
    ask: async (_a, ctx) => {
      ctx.signal.addEventListener('abort', () => parentReason.resolve(ctx.signal.reason));
      try {
        return await ctx.request('elicitation/create', {
          message: 'sure?',
          requestedSchema: { type: 'object' },
        });
      } catch (error) {
        childError.resolve(error);
        throw error;
      }
    },
  });
  await peer.request('tools/call', call('ask'), 1);
  const child = await peer.read('the nested request');
  expect(child.method).toBe('elicitation/create');

  await peer.cancel(1);

  expect(await peer.read('the child cancel')).toEqual({
    jsonrpc: '2.0',
    method: 'notifications/cancelled',
    params: { requestId: child.id, reason: 'Request aborted by the caller' },
  });
  const error = (await within(childError.promise, 5_000, 'child failure')) as RequestAbortedError;
  expect(error).toBeInstanceOf(RequestAbortedError);
  expect(error.cause).toBeInstanceOf(CancelledByPeerError);
  expect(await parentReason.promise).toBeInstanceOf(CancelledByPeerError);
  // A late answer to the child changes nothing; the parent stays unanswered.
  await peer.send({ id: child.id, result: { action: 'accept' } });
  await settle();
  expect(withMethod(serverSide.sent, 'notifications/cancelled')).toHaveLength(1);
  await session.close();
  expectCleanWire(serverSide, [1]);
});

test('nested requests follow their parent on close: the child rejects with ConnectionClosedError, nothing more is written', async () => {
  const childError = deferred<unknown>();
  const { peer, peerSide, serverSide, session } = await toolServer({
    ask: async (_a, ctx) => {
      try {
        return await ctx.request('sampling/createMessage', { messages: [], maxTokens: 1 });
      } catch (error) {
        childError.resolve(error);
        throw error;
      }
    },
  });
  await peer.request('tools/call', call('ask'), 1);
  await peer.read('the nested request');
  const before = serverSide.sent.length;

  await peerSide.close();

  expect(await within(childError.promise, 5_000, 'child failure')).toBeInstanceOf(ConnectionClosedError);
  await within(session.closed, 5_000, 'session.closed');
  expect(serverSide.sent.length).toBe(before);
  expectCleanWire(serverSide);
});

test('a nested request with its own signal: aborting it cancels only the child', async () => {
  const controller = new AbortController();
  const childError = deferred<unknown>();
  const { peer, serverSide, session } = await toolServer({
    ask: async (_a, ctx) => {
      const child = ctx.request('roots/list', {}, { signal: controller.signal }).catch((e: unknown) => e);
      childError.resolve(await child);
      return text(ctx.signal.aborted ? 'parent aborted' : 'parent alive');
    },
  });
  await peer.request('tools/call', call('ask'), 1);
  const child = await peer.read();
  controller.abort();
  expect(await peer.read()).toMatchObject({
    method: 'notifications/cancelled',
    params: { requestId: child.id },
  });
  expect(await peer.read()).toEqual({ jsonrpc: '2.0', id: 1, result: text('parent alive') });
  expect(await childError.promise).toBeInstanceOf(RequestAbortedError);
  await session.close();
  expectCleanWire(serverSide);
});
