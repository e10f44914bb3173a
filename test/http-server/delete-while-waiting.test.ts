/**
 * Issue 23 item 1 (DESIGN.md "Ending HTTP streams"): a DELETE, like every other end of a session,
 * answers each unanswered request whose stream is open with one `-32000 Connection closed`
 * before the stream ends. The DELETE may come from another holder of the session id than the
 * client waiting; python-sdk 1.29, whose stream just ends, resumes, gets 404, gives up silently
 * and leaves its call pending. And the DELETE's own reply goes out before those answers (the
 * client that sent it stops reading its streams once it is answered), with the handlers already
 * aborted.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, test } from 'vitest';
import { toNodeListener } from 'keel-mcp/node';
import { ConnectionClosedError, ErrorCode, type JsonObject, type JsonRpcMessage } from 'keel-mcp/core';
import { createHttpHandler, InMemoryEventStore, type HttpHandlerOptions } from 'keel-mcp/http';
import { useProcessGuard, within } from '../helpers/guard.js';
import { call, initialize } from './support/direct.js';
import { callTool, createTestServer, deferred, openSession, Probes, SseReader } from './support/harness.js';
import { pythonLikeCall } from './support/python-like-call.js';

useProcessGuard();

/** One write to a response, in the order the server made them. */
interface Write {
  /** `x-who` header of the request, and its method. */
  request: string;
  op: 'write' | 'end';
  text: string;
  /** The response had already ended. */
  afterEnd: boolean;
}

interface Host {
  url: string;
  probes: Probes;
  writes: Write[];
  close(): Promise<void>;
}

let host: Host | undefined;
afterEach(async () => {
  await host?.close();
  host = undefined;
});

/** Keel's handler behind node:http, every response write recorded. */
async function startHost(options: HttpHandlerOptions = {}): Promise<Host> {
  const probes = new Probes();
  const handler = createHttpHandler(createTestServer(probes), { keepAliveMs: 0, retryMs: 10, ...options });
  const listener = toNodeListener(handler);
  const writes: Write[] = [];
  const server = createServer((req, res) => {
    record(req, res, writes);
    listener(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  return {
    url,
    probes,
    writes,
    async close() {
      await handler.close({ deadlineMs: 2_000 });
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

function record(req: IncomingMessage, res: ServerResponse, writes: Write[]): void {
  const request = `${String(req.headers['x-who'] ?? '')} ${String(req.method)}`;
  const target = res as unknown as { write: Writer; end: Writer };
  const write = target.write.bind(res);
  const end = target.end.bind(res);
  target.write = (...args) => {
    writes.push({ request, op: 'write', text: textOf(args[0]), afterEnd: res.writableEnded });
    return write(...args);
  };
  target.end = (...args) => {
    writes.push({ request, op: 'end', text: textOf(args[0]), afterEnd: res.writableEnded });
    return end(...args);
  };
}

type Writer = (...args: unknown[]) => unknown;

function textOf(chunk: unknown): string {
  return typeof chunk === 'string' ? chunk : chunk instanceof Uint8Array ? Buffer.from(chunk).toString() : '';
}

const CLOSED = {
  jsonrpc: '2.0',
  id: 1,
  error: { code: ErrorCode.ConnectionClosed, message: 'Connection closed' },
};

function deleteSession(url: string, sessionId: string, who: string): Promise<Response> {
  return fetch(url, { method: 'DELETE', headers: { 'mcp-session-id': sessionId, 'x-who': who } });
}

test('issue 23 item 1: a python-sdk-like call waiting on elicitation settles with one -32000 on its POST stream when another party DELETEs the session', async () => {
  host = await startHost();
  const { url, probes, writes } = host;
  const sessionId = await openSession(url);
  const asked = deferred<JsonObject>();
  const call = pythonLikeCall(url, sessionId, callTool(1, 'block', { key: 'py' }), {
    headers: { 'x-who': 'python' },
    onRelated: (message) => asked.resolve(message),
  });
  expect((await within(asked.promise, 5_000, 'elicitation')).method).toBe('elicitation/create');

  const deleted = await deleteSession(url, sessionId, 'other');
  expect(deleted.status).toBe(200);
  await deleted.body?.cancel();

  const outcome = await within(call, 5_000, 'the python-like call');
  expect(outcome.gaveUp).toBe(false);
  // Exactly one answer, the shutdown error, read on the POST stream before it ended: no resume.
  expect(outcome.answers).toEqual([CLOSED]);
  expect(outcome.answeredOn).toBe('post');
  expect(outcome.resumes).toEqual([]);
  expect(outcome.related.map((message) => message.method)).toEqual(['elicitation/create']);
  expect(await within(probes.for(probes.aborted, 'py').promise)).toBeInstanceOf(ConnectionClosedError);
  expect(writes.filter((write) => write.afterEnd)).toEqual([]);

  // The session is gone: a client that resumes anyway gets 404 (and nothing is answered twice).
  const resumed = await fetch(url, {
    headers: {
      accept: 'text/event-stream',
      'mcp-session-id': sessionId,
      'last-event-id': `${sessionId}:1:1`,
    },
  });
  expect(resumed.status).toBe(404);
  await resumed.body?.cancel();
});

test("issue 23 item 1: the DELETE's reply goes out before the answers on the session's streams, its handlers already aborted", async () => {
  host = await startHost();
  const { url, probes, writes } = host;
  const sessionId = await openSession(url);
  const asked = deferred<JsonObject>();
  const call = pythonLikeCall(url, sessionId, callTool(1, 'block', { key: 'own' }), {
    headers: { 'x-who': 'python' },
    onRelated: (message) => asked.resolve(message),
  });
  await within(asked.promise, 5_000, 'elicitation');

  // The same client ends its session (python-sdk: DELETE, then it stops reading its streams).
  const deleted = await deleteSession(url, sessionId, 'python');
  expect(deleted.status).toBe(200);
  // The handler was aborted before the DELETE was answered.
  expect(probes.for(probes.aborted, 'own').settled).toBe(true);
  await deleted.body?.cancel();
  expect((await within(call, 5_000, 'the call')).answers).toEqual([CLOSED]);

  const deleteEnd = writes.findIndex((write) => write.request === 'python DELETE' && write.op === 'end');
  const answer = writes.findIndex(
    (write) => write.request === 'python POST' && write.text.includes('-32000'),
  );
  const postEnd = writes.findLastIndex((write) => write.request === 'python POST' && write.op === 'end');
  expect(deleteEnd).toBeGreaterThanOrEqual(0);
  expect(answer, 'the -32000 is written after the DELETE reply').toBeGreaterThan(deleteEnd);
  expect(postEnd, 'the POST stream ends after its answer').toBeGreaterThan(answer);
  expect(writes.filter((write) => write.afterEnd)).toEqual([]);
});

test('issue 23 item 1: a DELETE answers every open stream once (two calls), whatever answerOnClose says', async () => {
  for (const answerOnClose of [false, true]) {
    host = await startHost({ connection: { answerOnClose } });
    const { url, probes, writes } = host;
    const sessionId = await openSession(url);
    const asked = [deferred<JsonObject>(), deferred<JsonObject>()];
    const calls = [1, 2].map((id) =>
      pythonLikeCall(url, sessionId, callTool(id, 'block', { key: `k${id}` }), {
        headers: { 'x-who': 'python' },
        onRelated: (message) => asked[id - 1]!.resolve(message),
      }),
    );
    await within(Promise.all(asked.map((entry) => entry.promise)), 5_000, 'both elicitations');
    const deleted = await deleteSession(url, sessionId, 'other');
    expect(deleted.status).toBe(200);
    await deleted.body?.cancel();
    const outcomes = await within(Promise.all(calls), 5_000, 'both calls');
    expect(outcomes.map((outcome) => outcome.answers)).toEqual([[CLOSED], [{ ...CLOSED, id: 2 }]]);
    await within(Promise.all([1, 2].map((id) => probes.for(probes.aborted, `k${id}`).promise)));
    expect(writes.filter((write) => write.afterEnd)).toEqual([]);
    await host.close();
    host = undefined;
  }
});

test('a shutdown right after a DELETE ends the deleted session too: its stream is answered and ended before close resolves', async () => {
  const probes = new Probes();
  const stored: JsonRpcMessage[] = [];
  const eventStore = new (class extends InMemoryEventStore {
    override storeEvent(streamId: string, message: JsonRpcMessage | undefined, data?: string): string {
      if (message) stored.push(message);
      return super.storeEvent(streamId, message, data);
    }
  })();
  const handler = createHttpHandler(createTestServer(probes), { keepAliveMs: 0, eventStore });
  const sessionId = await initialize(handler);
  const stream = new SseReader(await call(handler, callTool(1, 'block', { key: 'b' }), { sessionId }));
  expect(await within(stream.nextMessage())).toMatchObject({ method: 'elicitation/create' });
  const deleted = await call(handler, undefined, { sessionId, method: 'DELETE' });
  expect(deleted.status).toBe(200);
  // No macrotask since the DELETE: the session's end is still held behind its reply.
  await within(handler.close({ deadlineMs: 2_000 }), 5_000, 'shutdown');
  expect(stored.filter((message) => 'error' in message)).toEqual([CLOSED]);
  expect(await within(stream.rest())).toEqual([CLOSED]);
  expect(stream.done).toBe(true);
  expect(probes.for(probes.aborted, 'b').settled).toBe(true);
});
