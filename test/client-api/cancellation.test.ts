import { describe, expect, test } from 'vitest';
import {
  CancelledByPeerError,
  ConnectionClosedError,
  RequestAbortedError,
  RequestTimeoutError,
  type Progress,
} from 'keel-mcp/core';
import { useProcessGuard, within } from '../helpers/guard.js';
import { useClientFixture } from './fixtures/use-client-fixture.js';

useProcessGuard();
const { connected } = useClientFixture();

function cancelsSent(sent: { method?: string; params?: unknown }[]) {
  return sent.filter((message) => message.method === 'notifications/cancelled');
}

describe('progress, signal and timeout of a call', () => {
  test('onprogress receives each progress notification of the call', async () => {
    const { client, clientTransport } = await connected();
    const seen: Progress[] = [];
    const result = await client.callTool('progress', {}, { onprogress: (p) => seen.push(p) });
    expect(result.content).toEqual([{ type: 'text', text: 'done' }]);
    expect(seen).toEqual([
      { progress: 1, total: 3, message: 'step 1' },
      { progress: 2, total: 3, message: 'step 2' },
      { progress: 3, total: 3, message: 'step 3' },
    ]);
    const call = clientTransport.sent.find((m) => 'method' in m && m.method === 'tools/call');
    expect(call && 'params' in call && call.params?._meta).toHaveProperty('progressToken');
  });

  test('aborting the signal rejects with RequestAbortedError and cancels on the wire once', async () => {
    const { client, clientTransport, recorder } = await connected();
    const controller = new AbortController();
    const call = client.callTool('slow', {}, { signal: controller.signal });
    await within(recorder.slowStarted);
    controller.abort(new Error('user pressed stop'));
    const error = await within(call.catch((e: unknown) => e));
    expect(error).toBeInstanceOf(RequestAbortedError);
    expect((error as Error).cause).toEqual(new Error('user pressed stop'));
    await within(waitUntil(() => recorder.aborted.length === 1));
    expect(recorder.aborted[0]).toBeInstanceOf(CancelledByPeerError);
    expect(cancelsSent(clientTransport.sent as never)).toHaveLength(1);
    await expect(client.ping()).resolves.toBeUndefined();
  });

  test('an already aborted signal fails at once without sending', async () => {
    const { client, clientTransport } = await connected();
    const before = clientTransport.sent.length;
    await expect(client.callTool('slow', {}, { signal: AbortSignal.abort() })).rejects.toBeInstanceOf(
      RequestAbortedError,
    );
    expect(clientTransport.sent.length).toBe(before);
  });

  test('timeoutMs rejects with RequestTimeoutError and cancels the call on the server', async () => {
    const { client, clientTransport, recorder } = await connected();
    const error = await within(client.callTool('slow', {}, { timeoutMs: 50 }).catch((e: unknown) => e));
    expect(error).toBeInstanceOf(RequestTimeoutError);
    expect(error).toMatchObject({ timeoutMs: 50 });
    await within(waitUntil(() => recorder.aborted.length === 1));
    expect(recorder.aborted[0]).toBeInstanceOf(CancelledByPeerError);
    expect(cancelsSent(clientTransport.sent as never)).toHaveLength(1);
  });

  test('the connection default timeout applies when a call sets none', async () => {
    const { client } = await connected({ connection: { requestDefaults: { timeoutMs: 40 } } });
    await expect(within(client.callTool('slow'))).rejects.toBeInstanceOf(RequestTimeoutError);
    // Pagination helpers pass only what was set, so the default holds there too.
    await expect(client.listAllTools()).resolves.toHaveLength(10);
  });

  test('closing the client fails the call in flight with ConnectionClosedError, once', async () => {
    const { client, recorder } = await connected();
    const call = client.callTool('slow');
    await within(recorder.slowStarted);
    await client.close();
    await expect(within(call)).rejects.toBeInstanceOf(ConnectionClosedError);
    await expect(client.callTool('add', { a: 1, b: 2 })).rejects.toBeInstanceOf(ConnectionClosedError);
  });

  test('the server shutting down answers the call in flight with -32000 and the client closes', async () => {
    const { client, session, recorder } = await connected();
    const call = client.callTool('slow');
    await within(recorder.slowStarted);
    await session.close();
    // The server's ordered teardown writes one "Connection closed" error for the open request.
    await expect(within(call)).rejects.toMatchObject({ code: -32000 });
    await within(client.closed);
    await expect(client.ping()).rejects.toBeInstanceOf(ConnectionClosedError);
  });
});

async function waitUntil(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}
