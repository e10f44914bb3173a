/**
 * Review fix (brief F2 item 1): a 2026-07-28 request whose POST gets a 2xx without its response
 * (202, 204, an empty JSON body, JSON for another id, an SSE stream that ends cleanly) can never
 * be answered (this era has no GET stream). The transport loses that one request at once, through
 * `onrequestlost`, with an HttpTransportError naming the status; the next request works. A legacy
 * request answered 202 still waits (its answer may come on the GET stream).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { listen } from 'keel-mcp/client';
import { Connection, ConnectionClosedError, type JsonObject } from 'keel-mcp/core';
import { HttpTransportError, StreamableHttpClientTransport } from 'keel-mcp/http';
import { useProcessGuard, within } from '../helpers/guard.js';
import { outcome } from './support/connect.js';

useProcessGuard();

const META: JsonObject = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'c', version: '1' },
};

/** How the stub server answers a POST, by the request's `params.name` (or method). */
type Answer = (id: unknown) => Response;

const sseHeaders = { 'content-type': 'text/event-stream' };
const jsonHeaders = { 'content-type': 'application/json' };

const ANSWERS: Record<string, Answer> = {
  accepted: () => new Response(null, { status: 202 }),
  'no-content': () => new Response(null, { status: 204 }),
  'empty-json': () => new Response('', { status: 200, headers: jsonHeaders }),
  'other-id': () =>
    new Response(JSON.stringify({ jsonrpc: '2.0', id: 'someone-else', result: {} }), {
      status: 200,
      headers: jsonHeaders,
    }),
  'clean-sse-end': () =>
    new Response(
      'data: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}\n\n',
      { status: 200, headers: sseHeaders },
    ),
  ok: (id) =>
    new Response(JSON.stringify({ jsonrpc: '2.0', id, result: { resultType: 'complete', ok: true } }), {
      status: 200,
      headers: jsonHeaders,
    }),
};

interface Stub {
  connection: Connection;
  transport: StreamableHttpClientTransport;
  errors: unknown[];
}

let stub: Stub | undefined;
afterEach(async () => {
  await stub?.connection.close();
  stub = undefined;
});

/** A connection over a transport whose fetch answers each POST from {@link ANSWERS}. */
function connect(): Stub {
  const transport = new StreamableHttpClientTransport('http://127.0.0.1:1/mcp', {
    openGetStream: false,
    fetch: async (_url, init) => {
      const body = JSON.parse(init?.body as string) as { id?: unknown; method: string; params?: JsonObject };
      const key = typeof body.params?.name === 'string' ? body.params.name : body.method;
      return (ANSWERS[key] ?? ANSWERS.accepted!)(body.id);
    },
  });
  const errors: unknown[] = [];
  transport.onerror = (error) => errors.push(error);
  const connection = new Connection(transport);
  void connection.start();
  stub = { connection, transport, errors };
  return stub;
}

function call(connection: Connection, name: string): Promise<JsonObject> {
  // A long timeout: the request must fail because its answer is known to be missing, not late.
  return connection.request('tools/call', { name, _meta: META }, { timeoutMs: 600_000 });
}

describe('a 2026-07-28 request whose POST ends without its response', () => {
  it.each([
    ['accepted', 202, /HTTP 202 .*no body/],
    ['no-content', 204, /HTTP 204 .*no body/],
    ['empty-json', 200, /HTTP 200 .*JSON body without it/],
    ['other-id', 200, /HTTP 200 .*JSON body without it/],
  ])(
    '%s: fails at once with HttpTransportError (status %i); the next request works',
    async (name, status, text) => {
      const { connection, errors } = connect();
      const failed = await outcome(call(connection, name));
      expect(failed).toBeInstanceOf(ConnectionClosedError);
      const cause = (failed as Error).cause;
      expect(cause).toBeInstanceOf(HttpTransportError);
      expect((cause as HttpTransportError).status).toBe(status);
      expect((cause as Error).message).toMatch(text);
      expect(errors).toEqual([cause]);
      expect(connection.pendingCount).toBe(0);
      expect(await within(call(connection, 'ok'), 5_000, 'next call')).toEqual({
        resultType: 'complete',
        ok: true,
      });
    },
  );

  it('an SSE stream that ends cleanly without it: lost, the next request works', async () => {
    const { connection } = connect();
    const failed = await outcome(call(connection, 'clean-sse-end'));
    expect(failed).toBeInstanceOf(ConnectionClosedError);
    expect((failed as Error).cause).toBeInstanceOf(HttpTransportError);
    expect(await within(call(connection, 'ok'), 5_000, 'next call')).toEqual({
      resultType: 'complete',
      ok: true,
    });
  });

  it('a subscriptions/listen answered 202 ends lost (it has no timeout to wait out)', async () => {
    const { connection } = connect();
    const host = {
      connection,
      request: (method: string, params: JsonObject, options: object) =>
        connection.request(method, { ...params, _meta: META }, options),
    };
    const subscription = listen(host, { toolsListChanged: true });
    const end = await within(subscription.ended, 5_000, 'listen end');
    expect(end.reason).toBe('lost');
    expect(end.reason === 'lost' && end.error.cause).toBeInstanceOf(HttpTransportError);
    await expect(subscription.acknowledged).rejects.toBeInstanceOf(ConnectionClosedError);
  });

  it('a legacy request answered 202 still waits (its answer may come on the GET stream)', async () => {
    const { connection, transport, errors } = connect();
    const sent: Promise<void>[] = [];
    const send = transport.send.bind(transport);
    transport.send = (message, options) => {
      const done = send(message, options);
      sent.push(done);
      return done;
    };
    const pending = connection.request('tools/call', { name: 'accepted' });
    pending.catch(() => undefined); // fails at close, on purpose
    expect(sent).toHaveLength(1);
    await within(sent[0]!, 5_000, 'legacy POST');
    expect(connection.pendingCount).toBe(1);
    expect(errors).toEqual([]);
  });
});
