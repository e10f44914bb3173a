/**
 * Resumption of a request's SSE stream (GET + Last-Event-ID after the server's retry delay), and
 * what happens when it cannot be resumed: the request fails alone, typed, and never hangs.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ConnectionClosedError } from 'keel-mcp/core';
import { HttpTransportError } from 'keel-mcp/http';
import { useProcessGuard, within } from '../helpers/guard.js';
import { connectClient, outcome } from './support/connect.js';
import { json, sse, startMockServer, type MockServer } from './support/mock-server.js';

useProcessGuard();

let server: MockServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const call = { name: 'slow', arguments: {} };

describe('Streamable HTTP client transport: resumption', () => {
  it('resumes a dropped POST stream with GET + Last-Event-ID, no earlier than the retry delay', async () => {
    const retry = 300;
    let closedAt = 0;
    let callId: unknown;
    server = await startMockServer((seen, _req, res) => {
      if (seen.body?.method === 'tools/call') {
        callId = seen.body.id;
        const stream = sse(res);
        stream.event({ id: 'event-1', retry, data: '' });
        stream.end();
        closedAt = performance.now();
        return true;
      }
      if (seen.method === 'GET' && seen.headers['last-event-id'] === 'event-1') {
        const stream = sse(res);
        stream.event({
          id: 'event-2',
          data: { jsonrpc: '2.0', id: callId, result: { content: [{ type: 'text', text: 'done' }] } },
        });
        stream.end();
        return true;
      }
      return false;
    });
    const { client } = await connectClient(server.url, { openGetStream: false });
    const result = await within(client.request('tools/call', call));
    expect(result).toEqual({ content: [{ type: 'text', text: 'done' }] });

    const resume = await server.waitFor((s) => s.method === 'GET', 'resume GET');
    expect(resume.headers['last-event-id']).toBe('event-1');
    expect(resume.headers.accept).toBe('text/event-stream');
    expect(resume.headers['mcp-session-id']).toBe('session-1');
    expect(resume.headers['mcp-protocol-version']).toBe('2025-11-25');
    // Timers may round down by a millisecond; the point is "waited retry", not "reconnected at once".
    expect(resume.at - closedAt).toBeGreaterThanOrEqual(retry - 2);
    expect(server.posts('notifications/cancelled')).toEqual([]);
    await within(client.close());
  });

  it('keeps polling while each resumed stream brings something, then gets the result', async () => {
    let callId: unknown;
    let gets = 0;
    server = await startMockServer((seen, _req, res) => {
      if (seen.body?.method === 'tools/call') {
        callId = seen.body.id;
        sse(res).event({ id: 'p0', retry: 10, data: '' });
        res.end();
        return true;
      }
      if (seen.method !== 'GET') return false;
      gets++;
      const stream = sse(res);
      // Five polls (more than maxAttempts) that each bring one event, then the result.
      if (gets < 6) stream.event({ id: `p${gets}`, data: '' });
      else stream.event({ id: 'p9', data: { jsonrpc: '2.0', id: callId, result: { polled: gets } } });
      stream.end();
      return true;
    });
    const { client } = await connectClient(server.url, {
      openGetStream: false,
      reconnect: { maxAttempts: 2 },
    });
    expect(await within(client.request('tools/call', call))).toEqual({ polled: 6 });
    const ids = server.seen.filter((s) => s.method === 'GET').map((s) => s.headers['last-event-id']);
    expect(ids).toEqual(['p0', 'p1', 'p2', 'p3', 'p4', 'p5']);
    await within(client.close());
  });

  it('fails the request (not the connection) when its stream ends without an event id to resume from', async () => {
    server = await startMockServer((seen, _req, res) => {
      if (seen.body?.method === 'tools/call' && seen.body.params.name === 'slow') {
        sse(res).event({
          data: { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } },
        });
        res.end();
        return true;
      }
      if (seen.body?.method === 'tools/call') {
        json(res, { jsonrpc: '2.0', id: seen.body.id, result: { ok: true } });
        return true;
      }
      return false;
    });
    const { client } = await connectClient(server.url, { openGetStream: false });
    const error = await outcome(client.request('tools/call', call));
    expect(error).toBeInstanceOf(ConnectionClosedError);
    expect((error as Error).cause).toBeInstanceOf(HttpTransportError);
    // Given up means abandoned: the server is told once, and the connection keeps serving.
    const cancel = await server.waitFor((s) => s.body?.method === 'notifications/cancelled', 'cancel');
    expect(cancel.body.params.requestId).toBe(server.posts('tools/call')[0]!.body.id);
    expect(await within(client.request('tools/call', { name: 'fast', arguments: {} }))).toEqual({ ok: true });
    expect(client.isConnected).toBe(true);
    expect(server.seen.filter((s) => s.method === 'GET')).toEqual([]);
    await within(client.close());
  });

  it('fails the request when the server refuses resumption (405)', async () => {
    server = await startMockServer((seen, _req, res) => {
      if (seen.body?.method !== 'tools/call') return false;
      sse(res).event({ id: 'r1', retry: 10, data: '' });
      res.end();
      return true;
    });
    const { client } = await connectClient(server.url, { openGetStream: false });
    const error = await outcome(client.request('tools/call', call));
    expect(error).toBeInstanceOf(ConnectionClosedError);
    expect(((error as Error).cause as HttpTransportError).status).toBe(405);
    expect(server.seen.filter((s) => s.method === 'GET')).toHaveLength(1);
    await within(client.close());
  });

  it('gives up after maxAttempts failed reconnections (503)', async () => {
    server = await startMockServer((seen, _req, res) => {
      if (seen.method === 'GET') return void res.writeHead(503).end();
      if (seen.body?.method !== 'tools/call') return false;
      sse(res).event({ id: 'r1', retry: 10, data: '' });
      res.end();
      return true;
    });
    const { client } = await connectClient(server.url, {
      openGetStream: false,
      reconnect: { maxAttempts: 3 },
    });
    const error = await outcome(client.request('tools/call', call));
    expect(error).toBeInstanceOf(ConnectionClosedError);
    expect(server.seen.filter((s) => s.method === 'GET')).toHaveLength(3);
    await within(client.close());
  });
});
