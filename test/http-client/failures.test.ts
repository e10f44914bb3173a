/**
 * Failures stay in their request: HTTP errors, an expired session, a server that dies mid-call,
 * a caller that gives up. Nothing hangs, nothing leaks, the connection keeps serving.
 */
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { ConnectionClosedError, McpError, RequestAbortedError, RequestTimeoutError } from 'keel-mcp/core';
import { HttpTransportError, SessionExpiredError, type StreamableHttpClientTransport } from 'keel-mcp/http';
import { useProcessGuard, within } from '../helpers/guard.js';
import { connectClient, outcome } from './support/connect.js';
import {
  initializeResult,
  json,
  SESSION,
  sse,
  startMockServer,
  type MockServer,
} from './support/mock-server.js';

useProcessGuard();

let server: MockServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const call = (name: string) => ({ name, arguments: {} });

describe('Streamable HTTP client transport: failures', () => {
  it('404 for a known session (renewSession off): SessionExpiredError, hook once, fail fast until re-initialized', async () => {
    let expiredSession = false;
    server = await startMockServer((seen, _req, res) => {
      const method = seen.body?.method;
      if (method === 'initialize' && seen.headers['mcp-session-id'] === undefined && expiredSession) {
        json(res, initializeResult(seen.body.id), 200, { 'mcp-session-id': 'session-2' });
        return true;
      }
      if (method === 'tools/list' && seen.headers['mcp-session-id'] === SESSION) {
        expiredSession = true;
        json(res, { jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } }, 404);
        return true;
      }
      return false;
    });
    const { client, transport } = await connectClient(
      server.url,
      { openGetStream: false },
      { renewSession: false },
    );
    const expired: SessionExpiredError[] = [];
    transport.onsessionexpired = (error) => expired.push(error);

    const error = await outcome(client.request('tools/list', {}));
    expect(error).toBeInstanceOf(ConnectionClosedError);
    expect((error as Error).cause).toBeInstanceOf(SessionExpiredError);
    expect(expired.map((e) => e.sessionId)).toEqual([SESSION]);
    expect(transport.sessionId).toBeUndefined();

    // Until a new initialize, nothing reaches the server.
    const posts = server.seen.length;
    const again = await outcome(client.request('tools/list', {}));
    expect((again as Error).cause).toBeInstanceOf(SessionExpiredError);
    expect(server.seen.length).toBe(posts);
    expect(expired).toHaveLength(1);

    // The high-level client's move: a new initialize, sent without the dead session id.
    await within(
      client.request('initialize', {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: client.info,
      }),
    );
    expect(server.posts('initialize')[1]!.headers['mcp-session-id']).toBeUndefined();
    expect(transport.sessionId).toBe('session-2');
    expect(await within(client.request('tools/list', {}))).toEqual({});
    expect(server.posts('tools/list').at(-1)!.headers['mcp-session-id']).toBe('session-2');
    await within(client.close());
    expect(server.seen.find((s) => s.method === 'DELETE')!.headers['mcp-session-id']).toBe('session-2');
  });

  it('a JSON-RPC error in a non-2xx body is the peer answer; any other non-2xx fails only that request', async () => {
    server = await startMockServer((seen, _req, res) => {
      const name = seen.body?.params?.name;
      if (name === 'rpc-error') {
        json(res, { jsonrpc: '2.0', id: seen.body.id, error: { code: -32602, message: 'bad args' } }, 400);
        return true;
      }
      if (name === 'http-error') {
        res.writeHead(500, { 'content-type': 'text/plain' }).end('boom');
        return true;
      }
      return false;
    });
    const { client } = await connectClient(server.url, { openGetStream: false });
    const peer = await outcome(client.request('tools/call', call('rpc-error')));
    expect(peer).toBeInstanceOf(McpError);
    expect((peer as McpError).code).toBe(-32602);

    const local = await outcome(client.request('tools/call', call('http-error')));
    expect(local).toBeInstanceOf(ConnectionClosedError);
    expect(local).not.toBeInstanceOf(McpError);
    expect(((local as Error).cause as HttpTransportError).status).toBe(500);

    expect(await within(client.request('tools/call', call('fine')))).toEqual({});
    await within(client.close());
  });

  it('404 without a session is a plain HTTP failure, not an expired session', async () => {
    server = await startMockServer((_seen, _req, res) => void res.writeHead(404).end());
    const { StreamableHttpClientTransport } = await import('keel-mcp/http');
    const transport = new StreamableHttpClientTransport(server.url);
    const error = await outcome(transport.send({ jsonrpc: '2.0', id: 0, method: 'initialize', params: {} }));
    expect(error).toBeInstanceOf(HttpTransportError);
    expect(error).not.toBeInstanceOf(SessionExpiredError);
    await within(transport.close());
  });

  for (const when of ['before the answer', 'after the SSE headers'] as const) {
    it(`server dies mid-call (${when}): the call rejects promptly, the connection survives`, async () => {
      server = await startMockServer((seen, req, res) => {
        if (seen.body?.params?.name !== 'die') return false;
        if (when === 'after the SSE headers') sse(res);
        req.socket.destroy();
        return true;
      });
      const { client } = await connectClient(server.url, { openGetStream: false });
      const error = await outcome(client.request('tools/call', call('die')), 2_000);
      expect(error).toBeInstanceOf(ConnectionClosedError);
      expect(client.isConnected).toBe(true);
      expect(await within(client.request('tools/call', call('fine')))).toEqual({});
      await within(client.close());
    });
  }

  it('server gone for good after priming: bounded reconnect attempts, then the call rejects', async () => {
    server = await startMockServer((seen, req, res) => {
      if (seen.body?.params?.name !== 'die') return false;
      sse(res).event({ id: 'x1', retry: 10, data: '' });
      void server!.close();
      req.socket.destroy();
      return true;
    });
    const { client, transport } = await connectClient(server.url, { openGetStream: false });
    const error = await outcome(client.request('tools/call', call('die')), 3_000);
    expect(error).toBeInstanceOf(ConnectionClosedError);
    expect(transport.lastError).toBeInstanceOf(HttpTransportError);
    await within(client.close());
  });

  for (const how of ['caller abort', 'timeout'] as const) {
    it(`${how}: exactly one notifications/cancelled, and the response stream is released`, async () => {
      let released!: () => void;
      const streamReleased = new Promise<void>((resolve) => (released = resolve));
      let open: ServerResponse | undefined;
      server = await startMockServer((seen, _req, res) => {
        if (seen.body?.params?.name !== 'block') return false;
        sse(res).event({ id: 'b1', retry: 0, data: '' });
        open = res;
        res.on('close', () => released());
        return true;
      });
      const { client, transport } = await connectClient(server.url, { openGetStream: false });
      const abort = new AbortController();
      const pending = outcome(
        client.request(
          'tools/call',
          call('block'),
          how === 'timeout' ? { timeoutMs: 150 } : { signal: abort.signal },
        ),
      );
      const post = await server.waitFor((s) => s.body?.params?.name === 'block', 'tools/call POST');
      if (how === 'caller abort') abort.abort(new Error('user gave up'));

      const error = await pending;
      expect(error).toBeInstanceOf(how === 'timeout' ? RequestTimeoutError : RequestAbortedError);
      await within(streamReleased, 2_000, 'SSE response closed by the client');
      expect(open!.writableEnded).toBe(false); // the client hung up; the server did not end it

      // One round trip later: exactly one cancel, for that id, and no resumption of the stream.
      await within(client.request('ping', {}));
      const cancels = server.posts('notifications/cancelled');
      expect(cancels).toHaveLength(1);
      expect(cancels[0]!.body.params.requestId).toBe(post.body.id);
      expect(server.seen.filter((s) => s.method === 'GET')).toEqual([]);
      expect(transportInternals(transport)).toEqual({ active: 0, outbound: 0 });
      await within(client.close());
    });
  }
});

/** Peek at the transport's bookkeeping (what it still tracks must be nothing when idle). */
function transportInternals(transport: StreamableHttpClientTransport): { active: number; outbound: number } {
  const { outbound } = transport as unknown as { outbound: { activeCount: number; size: number } };
  return { active: outbound.activeCount, outbound: outbound.size };
}
