/**
 * The engine's seams that transports build on: `Transport.answerOnClose` (the transport's say at
 * teardown wins), `Transport.requestCancelled(id)` (called once a peer cancel was processed, after
 * the nested cancels were written), `MessageInfo.relatedRequestId` (inbound requests tied to an
 * outbound request we abandon are aborted, unanswered) and nested-cancel routing (the cancel for a
 * nested request travels with its parent's id).
 */
import { expect, test } from 'vitest';
import {
  Connection,
  type ConnectionOptions,
  CancelledByPeerError,
  RequestAbortedError,
  type JsonRpcMessage,
  type RequestId,
  type MessageInfo,
  type SendOptions,
} from 'keel-mcp/core';
import { MemoryTransport } from 'keel-mcp/memory';
import { useProcessGuard, within } from '../helpers/guard.js';
import { RecordingTransport } from '../helpers/recording-transport.js';
import { aborted, deferred, RawPeer, responsesFor, settle, withMethod } from './support/raw-peer.js';

useProcessGuard();

/** A transport with the optional hooks, recording what the engine tells it, in order. */
class HookedTransport extends RecordingTransport {
  answerOnClose: boolean | undefined;
  readonly events: string[] = [];
  readonly routes: (RequestId | undefined)[] = [];
  readonly related = new Map<RequestId, RequestId>();

  override send(message: JsonRpcMessage, options?: SendOptions): Promise<void> {
    const m = message as { method?: string; id?: RequestId };
    this.events.push(`send ${m.method ?? `answer ${String(m.id)}`}`);
    this.routes.push(options?.relatedRequestId);
    return super.send(message, options);
  }

  requestCancelled(id: RequestId): void {
    this.events.push(`requestCancelled ${String(id)}`);
  }

  messageInfo(message: object): MessageInfo | undefined {
    const id = (message as { id?: RequestId }).id;
    const outbound = id === undefined ? undefined : this.related.get(id);
    return outbound === undefined ? undefined : { relatedRequestId: outbound };
  }
}

function hookedPair(options?: ConnectionOptions) {
  const local = new HookedTransport();
  const remote = new RecordingTransport();
  MemoryTransport.link(local, remote);
  const connection = new Connection(local, options);
  const closed = connection.start();
  return { connection, closed, local, peer: new RawPeer(remote) };
}

/** A connection whose `wait` handler runs until aborted; resolves once it started. */
async function waiting(options?: ConnectionOptions, answerOnClose?: boolean) {
  const pair = hookedPair(options);
  pair.local.answerOnClose = answerOnClose;
  const started = deferred();
  pair.connection.setRequestHandler('wait', async (_p, ctx) => {
    started.resolve();
    await aborted(ctx.signal);
    return {};
  });
  await pair.peer.request('wait', {}, 1);
  await within(started.promise, 5_000, 'handler start');
  return pair;
}

test('answerOnClose: the transport saying no wins over the option and the local-close default', async () => {
  const { connection, local } = await waiting({ answerOnClose: true }, false);
  await connection.close();
  await settle();
  expect(responsesFor(local.sent, 1)).toEqual([]);
});

test('answerOnClose: the transport saying yes answers once even after EOF', async () => {
  const { closed, local } = await waiting(undefined, true);
  local.endInput();
  await within(closed, 5_000, 'closed');
  expect(responsesFor(local.sent, 1)).toEqual([
    { jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'Connection closed' } },
  ]);
});

test('answerOnClose: left to the transport (undefined), the option decides', async () => {
  const { closed, local } = await waiting({ answerOnClose: false }, undefined);
  local.endInput();
  await within(closed, 5_000, 'closed');
  expect(responsesFor(local.sent, 1)).toEqual([]);
});

test('requestCancelled(id) is called once, after the nested cancel was written with the parent id', async () => {
  const { connection, local, peer } = hookedPair();
  const nestedFailed = deferred<unknown>();
  connection.setRequestHandler('tools/call', async (_p, ctx) => {
    await ctx.request('roots/list', {}).catch((error: unknown) => nestedFailed.resolve(error));
    return {};
  });
  await peer.request('tools/call', {}, 'parent');
  const nested = await peer.read('the nested request');
  expect(nested.method).toBe('roots/list');

  await peer.cancel('parent');

  expect(await within(nestedFailed.promise, 5_000, 'nested failure')).toBeInstanceOf(RequestAbortedError);
  await settle();
  const cancelIndex = local.events.indexOf('send notifications/cancelled');
  expect(local.events.slice(cancelIndex)).toEqual([
    'send notifications/cancelled',
    'requestCancelled parent',
  ]);
  expect(local.events.filter((e) => e.startsWith('requestCancelled'))).toHaveLength(1);
  // Routed with the parent: on HTTP that is the parent's POST stream.
  expect(local.routes[cancelIndex]).toBe('parent');
  expect(withMethod(local.sent, 'notifications/cancelled')).toEqual([
    expect.objectContaining({ params: expect.objectContaining({ requestId: nested.id }) }),
  ]);
  expect(responsesFor(local.sent, 'parent')).toEqual([]);
  await connection.close();
});

test('a nested request that times out is cancelled with its parent id as route', async () => {
  const { connection, local, peer } = hookedPair();
  const failed = deferred<unknown>();
  connection.setRequestHandler('tools/call', async (_p, ctx) => {
    await ctx.request('roots/list', {}, { timeoutMs: 0 }).catch((error: unknown) => failed.resolve(error));
    return {};
  });
  await peer.request('tools/call', {}, 9);
  await within(failed.promise, 5_000, 'nested timeout');
  await peer.readUntil((m) => m.id === 9, 'the parent answer');
  const index = local.events.indexOf('send notifications/cancelled');
  expect(index).toBeGreaterThanOrEqual(0);
  expect(local.routes[index]).toBe(9);
  expect(local.events.filter((e) => e.startsWith('requestCancelled'))).toEqual([]);
  await connection.close();
});

for (const how of ['its own signal aborts', 'the parent is cancelled'] as const) {
  test(`a nested request made with its own signal is cancelled with its parent id as route when ${how}`, async () => {
    const { connection, local, peer } = hookedPair();
    const failed = deferred<unknown>();
    const own = new AbortController();
    connection.setRequestHandler('tools/call', async (_p, ctx) => {
      await ctx
        .request('elicitation/create', {}, { signal: own.signal })
        .catch((error: unknown) => failed.resolve(error));
      return {};
    });
    await peer.request('tools/call', {}, 'p');
    const nested = await peer.read('the nested request');
    if (how === 'its own signal aborts') own.abort();
    else await peer.cancel('p');
    expect(await within(failed.promise, 5_000, 'nested failure')).toBeInstanceOf(RequestAbortedError);
    await settle();
    const index = local.events.indexOf('send notifications/cancelled');
    expect(index).toBeGreaterThanOrEqual(0);
    expect(local.routes[index]).toBe('p');
    expect(withMethod(local.sent, 'notifications/cancelled')).toEqual([
      expect.objectContaining({ params: expect.objectContaining({ requestId: nested.id }) }),
    ]);
    await connection.close();
  });
}

test('relatedRequestId: abandoning an outbound request aborts the inbound requests sent for it, unanswered', async () => {
  const { connection, local, peer } = hookedPair();
  const reason = deferred<unknown>();
  const started = deferred();
  connection.setRequestHandler('elicitation/create', async (_p, ctx) => {
    started.resolve();
    reason.resolve(await aborted(ctx.signal));
    return { action: 'cancel' };
  });
  const controller = new AbortController();
  const call = connection.request('tools/call', {}, { signal: controller.signal }).catch((e: unknown) => e);
  const outbound = await peer.read('the tools/call');
  // The server's elicitation arrives on that call's stream: the transport ties it to the call.
  local.related.set('elicit-1', outbound.id as RequestId);
  await peer.request('elicitation/create', {}, 'elicit-1');
  await within(started.promise, 5_000, 'elicitation handler');

  controller.abort();

  expect(await within(call, 5_000, 'call')).toBeInstanceOf(RequestAbortedError);
  const why = await within(reason.promise, 5_000, 'elicitation abort');
  expect(why).toBeInstanceOf(RequestAbortedError);
  expect(why).not.toBeInstanceOf(CancelledByPeerError);
  await settle();
  expect(connection.inflightCount).toBe(0);
  expect(responsesFor(local.sent, 'elicit-1')).toEqual([]);
  expect(withMethod(local.sent, 'notifications/cancelled')).toHaveLength(1);
  await connection.close();
  expect(responsesFor(local.sent, 'elicit-1')).toEqual([]);
});

test('relatedRequestId: a request for an outbound request already given up on never runs and is not answered', async () => {
  const { connection, local, peer } = hookedPair();
  let ran = 0;
  connection.setRequestHandler('elicitation/create', () => {
    ran++;
    return { action: 'cancel' };
  });
  const controller = new AbortController();
  const call = connection.request('tools/call', {}, { signal: controller.signal }).catch((e: unknown) => e);
  const outbound = await peer.read('the tools/call');
  controller.abort();
  expect(await within(call, 5_000, 'call')).toBeInstanceOf(RequestAbortedError);
  // The server's elicitation for that call was already on its way (queued before the abandon).
  local.related.set('late-elicit', outbound.id as RequestId);
  await peer.request('elicitation/create', {}, 'late-elicit');
  await peer.request('ping-unknown', {}, 'probe');
  await peer.readUntil((m) => m.id === 'probe', 'the probe answer');
  expect(ran).toBe(0);
  expect(responsesFor(local.sent, 'late-elicit')).toEqual([]);
  await connection.close();
  expect(responsesFor(local.sent, 'late-elicit')).toEqual([]);
});
