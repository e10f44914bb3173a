/**
 * Guarantee 8 over real HTTP (issue 9 item 2): a server→client request made inside a handler
 * follows its parent. Its cancel travels on the parent's POST stream, so a client without a GET
 * stream still gets it; a peer cancel ends the parent's stream only after the engine wrote that
 * cancel, and with no response. Raw fetch on the wire: every message is counted.
 */
import { describe, expect, test } from 'vitest';
import { serveHttp } from 'keel-mcp/node';
import type { JsonObject, JsonRpcMessage } from 'keel-mcp/core';
import { InMemoryEventStore, type EventStore } from 'keel-mcp/http';
import { Server } from 'keel-mcp/server';
import { useProcessGuard, within } from '../helpers/guard.js';
import { callTool, deferred, openSession, ping, post, SseReader, startHarness } from './support/harness.js';

useProcessGuard();

const CANCELLED = 'notifications/cancelled';

/** Open the standalone GET stream and read its priming event. */
async function openGet(url: string, sessionId: string): Promise<SseReader> {
  const get = await fetch(url, { headers: { accept: 'text/event-stream', 'mcp-session-id': sessionId } });
  expect(get.status).toBe(200);
  const reader = new SseReader(get);
  await within(reader.next(), 5_000, 'GET priming');
  return reader;
}

/**
 * An event store that answers later, as Redis does: the nested cancel is stored after the engine
 * has already told the transport the parent was cancelled (found by `keel doctor`, issue 29).
 */
class LaterEventStore implements EventStore {
  private readonly inner = new InMemoryEventStore();
  storeEvent(streamId: string, message: JsonRpcMessage | undefined, data?: string): Promise<string> {
    const id = this.inner.storeEvent(streamId, message, data);
    return new Promise((resolve) => setTimeout(() => resolve(id), 5));
  }
  replayEventsAfter(
    lastEventId: string,
    send: (eventId: string, message: JsonRpcMessage) => void,
  ): Promise<string | undefined> {
    return Promise.resolve(this.inner.replayEventsAfter(lastEventId, send));
  }
}

const SETUPS = [
  { name: 'without a GET stream', withGet: false, store: () => undefined },
  { name: 'with a GET stream', withGet: true, store: () => undefined },
  {
    name: 'with an event store that answers later (Redis)',
    withGet: false,
    store: () => new LaterEventStore(),
  },
];

for (const { name, withGet, store } of SETUPS) {
  describe(name, () => {
    test('a cancelled tools/call: its elicitation is cancelled on the POST stream once, then the stream ends unanswered', async () => {
      const eventStore = store();
      const h = await startHarness(eventStore ? { eventStore } : {});
      try {
        const sessionId = await openSession(h.url);
        const get = withGet ? await openGet(h.url, sessionId) : undefined;
        const events = new SseReader(await post(h.url, callTool(7, 'block', { key: 'k' }), { sessionId }));
        const elicitation = await within(events.nextMessage(), 5_000, 'elicitation');
        expect(elicitation).toMatchObject({ method: 'elicitation/create' });

        const cancel = await post(
          h.url,
          { jsonrpc: '2.0', method: CANCELLED, params: { requestId: 7, reason: 'user' } },
          { sessionId },
        );
        expect(cancel.status).toBe(202);

        // Exactly one message follows on the POST stream: the nested request's cancel. No
        // response for the cancelled call (no result, no error).
        const rest = await within(events.rest(), 5_000, 'POST stream end');
        expect(rest).toEqual([
          {
            jsonrpc: '2.0',
            method: CANCELLED,
            params: { requestId: elicitation!.id, reason: expect.any(String) },
          },
        ]);
        expect(events.done).toBe(true);
        await within(h.probes.for(h.probes.aborted, 'k').promise, 5_000, 'handler abort');

        // The session lives on; the GET stream got nothing for the cancelled call.
        expect(await ping(h.url, sessionId)).toMatchObject({ result: {} });
        if (get) {
          await get.cancel();
          expect(await within(get.rest())).toEqual([]);
        }
      } finally {
        await h.close();
      }
    });

    test('an elicitation that times out is cancelled on the POST stream; the late answer is ignored', async () => {
      const outcome = deferred<string>();
      const server = new Server({ name: 'timeout', version: '1' }, { capabilities: { tools: {} } });
      server.setRequestHandler('tools/call', async (_params, ctx) => {
        try {
          await ctx.request(
            'elicitation/create',
            { message: 'quick!', requestedSchema: { type: 'object', properties: {} } },
            { timeoutMs: 50 },
          );
          outcome.resolve('answered');
        } catch (error) {
          outcome.resolve((error as Error).name);
        }
        return { content: [{ type: 'text', text: 'after the timeout' }] };
      });
      const eventStore = store();
      const serving = await serveHttp(server, {
        port: 0,
        keepAliveMs: 0,
        ...(eventStore ? { eventStore } : {}),
      });
      try {
        const sessionId = await openSession(serving.url);
        const get = withGet ? await openGet(serving.url, sessionId) : undefined;
        const events = new SseReader(await post(serving.url, callTool(1, 'slow'), { sessionId }));
        const messages = await within(events.rest(), 5_000, 'POST stream');
        expect(await outcome.promise).toBe('RequestTimeoutError');
        const elicitation = messages[0] as JsonObject & { id: number };
        expect(messages.map((m) => m.method ?? m.id)).toEqual(['elicitation/create', CANCELLED, 1]);
        expect(messages[1]).toMatchObject({ params: { requestId: elicitation.id } });
        expect(messages[2]).toMatchObject({ result: { content: [{ text: 'after the timeout' }] } });

        // The client's late answer is accepted on the wire and ignored by the server.
        const late = await post(
          serving.url,
          { jsonrpc: '2.0', id: elicitation.id, result: { action: 'accept', content: {} } },
          { sessionId },
        );
        expect(late.status).toBe(202);
        expect(await ping(serving.url, sessionId)).toMatchObject({ result: {} });
        if (get) {
          await get.cancel();
          expect(await within(get.rest())).toEqual([]);
        }
      } finally {
        await serving.close({ deadlineMs: 2_000 });
      }
    });
  });
}

test('a JSON-only client whose cancelled request sent nothing yet gets an empty 202', async () => {
  const h = await startHarness();
  try {
    const sessionId = await openSession(h.url);
    const pending = post(h.url, callTool(5, 'gated', { key: 'g' }), {
      sessionId,
      headers: { accept: 'application/json' },
    });
    await within(h.probes.for(h.probes.started, 'g').promise, 5_000, 'handler start');
    await post(h.url, { jsonrpc: '2.0', method: CANCELLED, params: { requestId: 5 } }, { sessionId });
    const answer = await within(pending, 5_000, 'POST answer');
    expect(answer.status).toBe(202);
    expect(await answer.text()).toBe('');
    h.probes.for(h.probes.gates, 'g').resolve();
    await within(h.probes.for(h.probes.finished, 'g').promise, 5_000, 'handler end');
  } finally {
    await h.close();
  }
});
