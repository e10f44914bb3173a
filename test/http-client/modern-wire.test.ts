/**
 * Issue 10: the Streamable HTTP client transport carries 2026-07-28 requests (decided per message
 * by `params._meta`) the 2026-07-28 way. A raw node:http recorder sees the exact headers; the
 * engine's `Connection` drives the transport with hand-built modern `_meta`.
 */
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import {
  Connection,
  ConnectionClosedError,
  McpError,
  RequestAbortedError,
  type JsonObject,
  type JsonRpcMessage,
  type SendOptions,
} from 'keel-mcp/core';
import { HttpTransportError, StreamableHttpClientTransport } from 'keel-mcp/http';
import { useProcessGuard, within } from '../helpers/guard.js';
import { outcome } from './support/connect.js';
import { json, SESSION, sse, startMockServer, type MockServer, type Seen } from './support/mock-server.js';

useProcessGuard();

const MODERN = '2026-07-28';

function meta(extra: JsonObject = {}): JsonObject {
  return {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientCapabilities': {},
    ...extra,
  };
}

/** The `mcp-*` headers of a recorded request, by lower-case name. */
function mcpHeaders(seen: Seen): Record<string, unknown> {
  return Object.fromEntries(Object.entries(seen.headers).filter(([name]) => name.startsWith('mcp-')));
}

function base64(value: string): string {
  return `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;
}

interface Wired {
  connection: Connection;
  transport: StreamableHttpClientTransport;
  /** Every message the engine offered the transport, with the promise `send` returned. */
  offered: { message: JsonRpcMessage; options?: SendOptions | undefined; sent: Promise<void | undefined> }[];
}

/** A raw engine connection over a fresh transport; records what the engine hands the transport. */
function wire(url: string): Wired {
  const transport = new StreamableHttpClientTransport(url);
  const offered: Wired['offered'] = [];
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    const sent = send(message, options);
    offered.push({ message, options, sent: sent.catch(() => undefined) });
    return sent;
  };
  const connection = new Connection(transport);
  void connection.start();
  return { connection, transport, offered };
}

/** Resolves when the engine has offered a `notifications/cancelled` and the transport settled it. */
async function cancelSettled(wired: Wired, requestId: unknown): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const found = wired.offered.find(
      (o) =>
        'method' in o.message &&
        o.message.method === 'notifications/cancelled' &&
        o.message.params?.requestId === requestId,
    );
    if (found) return within(found.sent, 5_000, 'cancel send');
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error('the engine never offered notifications/cancelled');
}

let server: MockServer | undefined;
let wired: Wired | undefined;
afterEach(async () => {
  await wired?.connection.close();
  wired = undefined;
  await server?.close();
  server = undefined;
});

/** A JSON `{ resultType: 'complete' }` answer to every request (notifications: 202). */
function answerAll(seen: Seen, res: ServerResponse): boolean {
  if (seen.method !== 'POST' || seen.body?.id === undefined || seen.body.method === 'initialize')
    return false;
  json(res, { jsonrpc: '2.0', id: seen.body.id, result: { resultType: 'complete' } });
  return true;
}

describe('2026-07-28 requests on the wire', () => {
  it('carry exactly the request metadata headers (plain and Base64), SendOptions.headers, no session id; no GET, no DELETE', async () => {
    server = await startMockServer((seen, _req, res) => answerAll(seen, res));
    wired = wire(server.url);
    const { connection } = wired;
    const tool = 'wetter-für-köln';
    const uri = 'file:///notes/résumé.txt';
    await within(
      connection.request(
        'tools/call',
        { name: tool, arguments: { region: 'us-west1' }, _meta: meta() },
        // A caller header may not replace the transport's own (Mcp-Method here).
        { headers: { 'Mcp-Param-Region': 'us-west1', 'Mcp-Method': 'forged' } },
      ),
    );
    await within(connection.request('resources/read', { uri, _meta: meta() }));
    await within(connection.request('prompts/get', { name: 'greet', _meta: meta() }));
    await within(connection.request('tools/call', { name: ' padded ', _meta: meta() }));
    await within(connection.request('tools/list', { _meta: meta() }));

    const posts = server.seen.filter((s) => s.method === 'POST');
    expect(posts.map((s) => s.body.method)).toEqual([
      'tools/call',
      'resources/read',
      'prompts/get',
      'tools/call',
      'tools/list',
    ]);
    expect(posts.map(mcpHeaders)).toEqual([
      {
        'mcp-protocol-version': MODERN,
        'mcp-method': 'tools/call',
        'mcp-name': base64(tool),
        'mcp-param-region': 'us-west1',
      },
      { 'mcp-protocol-version': MODERN, 'mcp-method': 'resources/read', 'mcp-name': base64(uri) },
      { 'mcp-protocol-version': MODERN, 'mcp-method': 'prompts/get', 'mcp-name': 'greet' },
      { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': base64(' padded ') },
      { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/list' },
    ]);
    for (const post of posts) {
      expect(post.headers.accept).toBe('application/json, text/event-stream');
      expect(post.headers['content-type']).toBe('application/json');
    }
    expect(wired.transport.sessionId).toBeUndefined();

    await within(connection.close());
    expect(server.seen.map((s) => s.method)).toEqual(['POST', 'POST', 'POST', 'POST', 'POST']);
  });

  it('drop client notifications while no legacy exchange exists (nothing is POSTed)', async () => {
    server = await startMockServer((seen, _req, res) => answerAll(seen, res));
    wired = wire(server.url);
    // Resolves once the transport returned from send: a POST would have been answered by then.
    await within(wired.connection.notify('notifications/roots/list_changed'));
    await within(wired.connection.request('tools/list', { _meta: meta() }));
    expect(server.seen.map((s) => s.body?.method)).toEqual(['tools/list']);
  });

  it('a caller abort closes the POST (the server sees the connection end), POSTs no notifications/cancelled, and the transport goes on', async () => {
    let closed!: () => void;
    const serverSawClose = new Promise<void>((resolve) => (closed = resolve));
    server = await startMockServer((seen, _req, res) => {
      if (seen.body?.params?.name !== 'hold') return answerAll(seen, res);
      res.on('close', () => closed());
      sse(res).event({
        data: { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } },
      });
      return true;
    });
    wired = wire(server.url);
    const controller = new AbortController();
    const held = outcome(
      wired.connection.request('tools/call', { name: 'hold', _meta: meta() }, { signal: controller.signal }),
    );
    const post = await server.waitFor((s) => s.body?.params?.name === 'hold', 'held call');
    controller.abort();
    expect(await held).toBeInstanceOf(RequestAbortedError);
    await within(serverSawClose, 5_000, 'server sees the POST close');

    await cancelSettled(wired, post.body.id);
    expect(server.posts('notifications/cancelled')).toEqual([]);
    expect(await within(wired.connection.request('tools/list', { _meta: meta() }))).toEqual({
      resultType: 'complete',
    });
    expect(server.seen.filter((s) => s.method !== 'POST')).toEqual([]);
  });

  it('a stream that ends before its response loses that request alone (no GET resumption, no cancel POST)', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    server = await startMockServer((seen, _req, res) => {
      const name = seen.body?.params?.name;
      if (name === 'breaks') {
        // An event id and a retry hint: a legacy stream would be resumed with GET.
        const stream = sse(res);
        stream.event({
          id: 'e1',
          retry: 10,
          data: { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } },
        });
        stream.end();
        return true;
      }
      if (name === 'waits') {
        void gate.then(() =>
          json(res, { jsonrpc: '2.0', id: seen.body.id, result: { resultType: 'complete', waited: true } }),
        );
        return true;
      }
      return answerAll(seen, res);
    });
    wired = wire(server.url);
    const waits = outcome(wired.connection.request('tools/call', { name: 'waits', _meta: meta() }));
    await server.waitFor((s) => s.body?.params?.name === 'waits', 'waiting call');
    const broken = await outcome(wired.connection.request('tools/call', { name: 'breaks', _meta: meta() }));
    expect(broken).toBeInstanceOf(ConnectionClosedError);
    expect((broken as Error).cause).toBeInstanceOf(HttpTransportError);
    expect(String(((broken as Error).cause as Error).message)).toMatch(/cannot be resumed/);

    release();
    expect(await waits).toEqual({ resultType: 'complete', waited: true });
    const lostId = server.posts('tools/call').find((s) => s.body.params.name === 'breaks')!.body.id;
    await cancelSettled(wired, lostId);
    expect(server.posts('notifications/cancelled')).toEqual([]);
    expect(server.seen.filter((s) => s.method !== 'POST')).toEqual([]);
  });
});

describe('2026-07-28 requests beside a legacy session', () => {
  it('a lost modern request is not cancelled by POST even though notifications now have a session to go to', async () => {
    server = await startMockServer((seen, _req, res) => {
      if (seen.body?.params?.name !== 'breaks') return false;
      const stream = sse(res);
      stream.event({
        id: 'e1',
        data: { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } },
      });
      stream.end();
      return true;
    });
    wired = wire(server.url);
    const { connection } = wired;
    await within(
      connection.request('initialize', {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 't', version: '1' },
      }),
    );
    const broken = await outcome(connection.request('tools/call', { name: 'breaks', _meta: meta() }));
    expect(broken).toBeInstanceOf(ConnectionClosedError);
    const [call] = server.posts('tools/call');
    expect(call!.headers['mcp-session-id']).toBeUndefined();
    expect(call!.headers['mcp-protocol-version']).toBe(MODERN);
    await cancelSettled(wired, call!.body.id);
    expect(server.posts('notifications/cancelled')).toEqual([]);
    // The legacy session's own notifications still go out.
    await within(connection.notify('notifications/roots/list_changed'));
    expect(server.posts('notifications/roots/list_changed')).toHaveLength(1);
    expect(server.posts('notifications/roots/list_changed')[0]!.headers['mcp-session-id']).toBe(SESSION);
  });
});

describe('a failed modern probe, then initialize on the same transport', () => {
  /** How the probe fails: the transport's error (with the HTTP status) or the server's JSON-RPC error. */
  const transportRefusal = (probe: unknown): void => {
    expect(probe).toBeInstanceOf(ConnectionClosedError);
    expect((probe as Error).cause).toBeInstanceOf(HttpTransportError);
    expect(((probe as Error).cause as HttpTransportError).status).toBe(400);
  };
  // One request per 2026-07-28 POST: an error with id null can only be about it, so it is its answer.
  const jsonRpcRefusal = (probe: unknown): void => {
    expect(probe).toBeInstanceOf(McpError);
    expect((probe as McpError).code).toBe(-32000);
  };
  const refusals: [string, (res: ServerResponse) => void, (probe: unknown) => void][] = [
    [
      'a plain-text 400',
      (res) => void res.writeHead(400, { 'content-type': 'text/plain' }).end('Bad Request'),
      transportRefusal,
    ],
    [
      'a 400 JSON-RPC error with id null (a legacy server: "not initialized")',
      (res) =>
        json(
          res,
          {
            jsonrpc: '2.0',
            id: null,
            error: { code: -32000, message: 'Bad Request: Server not initialized' },
          },
          400,
        ),
      jsonRpcRefusal,
    ],
  ];
  it.each(refusals)(
    '%s rejects the probe; legacy then works unchanged',
    async (_name, refuse, expectRefusal) => {
      server = await startMockServer((seen, _req, res) => {
        if (seen.body?.method === 'server/discover') {
          refuse(res);
          return true;
        }
        if (seen.body?.method !== 'tools/list') return false;
        json(res, { jsonrpc: '2.0', id: seen.body.id, result: { tools: [] } });
        return true;
      });
      wired = wire(server.url);
      const { connection, transport } = wired;
      const probe = await outcome(connection.request('server/discover', { _meta: meta() }));
      expectRefusal(probe);
      // The probe's refusal is the caller's answer, not a fault of the transport.
      expect(transport.lastError).toBeUndefined();

      const init = await within(
        connection.request('initialize', {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 't', version: '1' },
        }),
      );
      expect(init.protocolVersion).toBe('2025-11-25');
      await within(connection.notify('notifications/initialized'));
      // A legacy request ignores SendOptions.headers (Mcp-Param-* belong to 2026-07-28).
      expect(
        await within(connection.request('tools/list', {}, { headers: { 'Mcp-Param-Region': 'x' } })),
      ).toEqual({ tools: [] });
      expect(transport.sessionId).toBe(SESSION);
      const [probePost] = server.posts('server/discover');
      expect(probePost!.headers['mcp-session-id']).toBeUndefined();
      for (const method of ['initialize', 'notifications/initialized', 'tools/list']) {
        const [post] = server.posts(method);
        expect(post!.headers['mcp-method']).toBeUndefined();
        expect(post!.headers['mcp-param-region']).toBeUndefined();
        if (method !== 'initialize') {
          expect(post!.headers['mcp-session-id']).toBe(SESSION);
          expect(post!.headers['mcp-protocol-version']).toBe('2025-11-25');
        }
      }
      await server.waitFor((s) => s.method === 'GET', 'standalone GET of the legacy session');
      await within(connection.close());
      await server.waitFor((s) => s.method === 'DELETE', 'DELETE of the legacy session');
    },
  );
});

describe('serverKey', () => {
  it('is the endpoint origin and path, without query or fragment', () => {
    expect(new StreamableHttpClientTransport('https://Example.com:8443/mcp/v1?tenant=a#x').serverKey).toBe(
      'https://example.com:8443/mcp/v1',
    );
    expect(new StreamableHttpClientTransport('http://127.0.0.1:80').serverKey).toBe('http://127.0.0.1/');
  });
});
