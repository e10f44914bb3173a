/**
 * Streamable HTTP client transport against a scripted raw node:http endpoint: headers, JSON and
 * SSE answers, the standalone GET stream, close.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ConnectionClosedError } from 'keel-mcp/core';
import { StreamableHttpClientTransport } from 'keel-mcp/http';
import { useProcessGuard, within } from '../helpers/guard.js';
import { connectClient } from './support/connect.js';
import { json, SESSION, sse, startMockServer, type MockServer } from './support/mock-server.js';

useProcessGuard();

let server: MockServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('Streamable HTTP client transport: basics', () => {
  it('sends the spec headers, learns session id and protocol version, and DELETEs on close', async () => {
    server = await startMockServer((seen, _req, res) => {
      if (seen.body?.method !== 'tools/list') return false;
      json(res, { jsonrpc: '2.0', id: seen.body.id, result: { tools: [] } });
      return true;
    });
    const { client, transport } = await connectClient(server.url);
    expect(transport.sessionId).toBe(SESSION);
    expect(transport.protocolVersion).toBe('2025-11-25');

    expect(await within(client.request('tools/list', {}))).toEqual({ tools: [] });
    // The optional GET stream was offered (405 here) and its refusal was not fatal.
    const get = await server.waitFor((s) => s.method === 'GET', 'standalone GET');
    expect(get.headers.accept).toBe('text/event-stream');
    expect(get.headers['mcp-session-id']).toBe(SESSION);

    const [init] = server.posts('initialize');
    expect(init!.headers.accept).toBe('application/json, text/event-stream');
    expect(init!.headers['content-type']).toBe('application/json');
    expect(init!.headers['mcp-session-id']).toBeUndefined();
    expect(init!.headers['mcp-protocol-version']).toBeUndefined();
    for (const method of ['notifications/initialized', 'tools/list']) {
      const [post] = server.posts(method);
      expect(post!.headers['mcp-session-id']).toBe(SESSION);
      expect(post!.headers['mcp-protocol-version']).toBe('2025-11-25');
    }

    await within(client.close());
    const del = await server.waitFor((s) => s.method === 'DELETE', 'DELETE');
    expect(del.headers['mcp-session-id']).toBe(SESSION);
    expect(client.isConnected).toBe(false);
  });

  it('reads an SSE answer: priming and empty events, foreign event types and comments are skipped', async () => {
    server = await startMockServer((seen, _req, res) => {
      if (seen.body?.method !== 'tools/call') return false;
      const id = seen.body.id;
      const token = seen.body.params._meta.progressToken;
      const stream = sse(res);
      stream.event({ id: 'e0', data: '' });
      res.write(': a comment\n\n');
      stream.event({ event: 'ping', data: 'not json' });
      stream.event({
        id: 'e1',
        data: {
          jsonrpc: '2.0',
          method: 'notifications/progress',
          params: { progressToken: token, progress: 1 },
        },
      });
      stream.event({ id: 'e2', data: { jsonrpc: '2.0', id, result: { content: [] } } });
      stream.end();
      return true;
    });
    const { client } = await connectClient(server.url);
    const progress: number[] = [];
    const result = await within(
      client.request(
        'tools/call',
        { name: 't', arguments: {} },
        { onprogress: (p) => progress.push(p.progress) },
      ),
    );
    expect(result).toEqual({ content: [] });
    expect(progress).toEqual([1]);
    await within(client.close());
  });

  it('conformance "initialize": no session, notifications answered 200 with a body, GET 400 is not fatal', async () => {
    server = await startMockServer((seen, _req, res) => {
      if (seen.method === 'GET') return void res.writeHead(400).end('no');
      if (seen.body?.method === 'initialize') {
        json(res, {
          jsonrpc: '2.0',
          id: seen.body.id,
          result: {
            protocolVersion: '2025-06-18',
            capabilities: {},
            serverInfo: { name: 'm', version: '1' },
          },
        });
      } else if (seen.body?.method === 'tools/list') {
        json(res, { jsonrpc: '2.0', id: seen.body.id, result: { tools: [] } });
      } else {
        json(res, { jsonrpc: '2.0', result: {} });
      }
      return true;
    });
    const { client, transport } = await connectClient(server.url);
    await server.waitFor((s) => s.method === 'GET', 'standalone GET');
    expect(transport.sessionId).toBeUndefined();
    expect(transport.protocolVersion).toBe('2025-06-18');
    expect(await within(client.request('tools/list', {}))).toEqual({ tools: [] });
    expect(server.posts('tools/list')[0]!.headers['mcp-protocol-version']).toBe('2025-06-18');
    await within(client.close());
    expect(server.seen.filter((s) => s.method === 'DELETE')).toEqual([]);
  });

  it('delivers standalone GET messages and reopens a dropped GET stream with Last-Event-ID', async () => {
    let gets = 0;
    let released!: () => void;
    const secondReleased = new Promise<void>((resolve) => (released = resolve));
    server = await startMockServer((seen, _req, res) => {
      if (seen.method !== 'GET') return false;
      gets++;
      const stream = sse(res);
      if (gets === 1) {
        stream.event({
          id: 'g1',
          retry: 20,
          data: { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'hello' } },
        });
        stream.end();
      } else {
        // The second GET stays open until the client closes it.
        res.on('close', () => released());
      }
      return true;
    });
    const { client } = await connectClient(server.url);
    const logged = new Promise<unknown>((resolve) => {
      client.setNotificationHandler('notifications/message', (params) => resolve(params.data));
    });
    expect(await within(logged)).toBe('hello');
    const second = await server.waitFor(
      (s) => s.method === 'GET' && s.headers['last-event-id'] === 'g1',
      'GET resume',
    );
    expect(second.headers['mcp-session-id']).toBe(SESSION);
    await within(client.close());
    await within(secondReleased, 2_000, 'GET stream released by close()');
    expect(gets).toBe(2);
  });

  it('close is idempotent, bounded when DELETE hangs, and later sends fail fast', async () => {
    server = await startMockServer((seen) => seen.method === 'DELETE'); // never answers DELETE
    const transport = new StreamableHttpClientTransport(server.url, {
      closeTimeoutMs: 100,
      openGetStream: false,
    });
    await within(
      transport.send({
        jsonrpc: '2.0',
        id: 'i',
        method: 'initialize',
        params: { protocolVersion: '2025-11-25' },
      }),
    );
    expect(transport.sessionId).toBe(SESSION);
    const first = transport.close();
    expect(transport.close()).toBe(first);
    await within(first, 2_000, 'close with a hanging DELETE');
    expect(transport.writable).toBe(false);
    await expect(transport.send({ jsonrpc: '2.0', method: 'notifications/x' })).rejects.toBeInstanceOf(
      ConnectionClosedError,
    );
    expect(server.seen.filter((s) => s.method === 'DELETE')).toHaveLength(1);
    expect(server.seen.filter((s) => s.method === 'GET')).toHaveLength(0);
  });
});
