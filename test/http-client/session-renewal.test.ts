/**
 * Issue 9, item 20: a 404 for our session means the server forgot it, and the spec says the client
 * MUST start a new one. Keel's client re-initializes by itself (once per burst, same capabilities
 * and client info), resends what the server refused unprocessed, never what may have run, never in
 * a loop, and says so with a `sessionReset` event.
 */
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { McpClient, type SessionReset } from 'keel-mcp/client';
import { serveHttp, type HttpServing, type ServeHttpOptions } from 'keel-mcp/node';
import { ConnectionClosedError, McpError, RequestAbortedError } from 'keel-mcp/core';
import { McpServer } from 'keel-mcp/server';
import {
  HttpTransportError,
  SessionExpiredError,
  StreamableHttpClientTransport,
  type SessionEndReason,
} from 'keel-mcp/http';
import { useProcessGuard, within } from '../helpers/guard.js';
import { connectClient, outcome } from './support/connect.js';
import { initializeResult, json, sse, startMockServer, type MockServer } from './support/mock-server.js';

useProcessGuard();

let mock: MockServer | undefined;
let keel: HttpServing | undefined;
afterEach(async () => {
  await mock?.close();
  await keel?.close({ deadlineMs: 2_000 });
  mock = undefined;
  keel = undefined;
});

// ---- against a real Keel server

interface Sent {
  method: string;
  session: string | null;
  body: any;
}

interface KeelSetup {
  client: McpClient;
  transport: StreamableHttpClientTransport;
  sent: Sent[];
  resets: SessionReset[];
  /** Resolves with the reason the first session ended for. */
  firstEnd: Promise<SessionEndReason>;
  runs: { echo: number; block: number };
  blockStarted: Promise<void>;
}

async function startKeel(options: ServeHttpOptions = {}, openGetStream = false): Promise<KeelSetup> {
  const runs = { echo: 0, block: 0 };
  let started!: () => void;
  const blockStarted = new Promise<void>((resolve) => (started = resolve));
  const server = new McpServer({ name: 'renewal', version: '1.0.0' });
  server.tool('echo', { description: 'Counts its runs' }, () => `run ${++runs.echo}`);
  server.tool(
    'block',
    { description: 'Waits until aborted' },
    (_args, ctx) =>
      new Promise((_resolve, reject) => {
        runs.block++;
        ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason as Error), { once: true });
        started();
      }),
  );
  let ended!: (reason: SessionEndReason) => void;
  const firstEnd = new Promise<SessionEndReason>((resolve) => (ended = resolve));
  keel = await serveHttp(server, {
    port: 0,
    host: '127.0.0.1',
    keepAliveMs: 0,
    retryMs: 20,
    onSessionEnd: (_id, reason) => ended(reason),
    ...options,
  });
  const sent: Sent[] = [];
  const recordingFetch: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    sent.push({
      method: init?.method ?? 'GET',
      session: headers.get('mcp-session-id'),
      body: typeof init?.body === 'string' ? JSON.parse(init.body) : undefined,
    });
    return fetch(input, init);
  };
  const transport = new StreamableHttpClientTransport(keel.url, {
    fetch: recordingFetch,
    openGetStream,
  });
  const client = await within(
    McpClient.connect(transport, {
      info: { name: 'renewing-client', version: '2.0.0' },
      era: 'legacy', // sessions exist only in the handshake era
      elicitation: { form: () => ({ action: 'decline' }) },
      roots: [{ uri: 'file:///work' }],
    }),
    5_000,
    'connect',
  );
  const resets: SessionReset[] = [];
  client.on('sessionReset', (reset) => void resets.push(reset));
  return { client, transport, sent, resets, firstEnd, runs, blockStarted };
}

const posts = (sent: Sent[], method: string): Sent[] =>
  sent.filter((s) => s.method === 'POST' && s.body?.method === method);

async function deleteSession(url: string, session: string): Promise<void> {
  const response = await fetch(url, {
    method: 'DELETE',
    headers: { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
  });
  await response.body?.cancel();
  expect(response.ok).toBe(true);
}

describe('Keel server forgets the session: the client starts a new one by itself', () => {
  it('session deleted server-side: one new initialize (same capabilities and info), the call is resent', async () => {
    const { client, transport, sent, resets, runs } = await startKeel();
    const old = transport.sessionId!;
    await deleteSession(keel!.url, old);

    const result = await within(client.callTool('echo', {}));
    expect(result.content).toEqual([{ type: 'text', text: 'run 1' }]);
    const renewed = transport.sessionId!;
    expect(renewed).toBeDefined();
    expect(renewed).not.toBe(old);
    expect(resets).toEqual([{ previousSessionId: old, sessionId: renewed }]);

    const inits = posts(sent, 'initialize');
    expect(inits).toHaveLength(2);
    expect(inits[1]!.session).toBeNull();
    expect(inits[1]!.body.params).toEqual(inits[0]!.body.params);
    expect(inits[1]!.body.params.clientInfo).toEqual({ name: 'renewing-client', version: '2.0.0' });
    expect(posts(sent, 'notifications/initialized').map((s) => s.session)).toEqual([old, renewed]);
    // The call went twice: refused (404, not run) in the old session, run once in the new one.
    expect(posts(sent, 'tools/call').map((s) => s.session)).toEqual([old, renewed]);
    expect(runs.echo).toBe(1);
    await within(client.close());
  });

  it('session expired server-side (idle timeout): the next call renews it', async () => {
    const { client, transport, resets, firstEnd, runs } = await startKeel({ sessions: { idleMs: 100 } });
    const old = transport.sessionId!;
    expect(await within(firstEnd, 5_000, 'the session expiring')).toBe('expired');
    expect((await within(client.callTool('echo', {}))).content).toEqual([{ type: 'text', text: 'run 1' }]);
    expect(resets).toEqual([{ previousSessionId: old, sessionId: transport.sessionId }]);
    expect(runs.echo).toBe(1);
    await within(client.close());
  });

  it('a burst of calls meets the 404: exactly one new initialize, every call resent once', async () => {
    const { client, transport, sent, resets, runs } = await startKeel();
    const old = transport.sessionId!;
    await deleteSession(keel!.url, old);

    const results = await within(Promise.all([1, 2, 3, 4, 5].map(() => client.callTool('echo', {}))));
    expect(results).toHaveLength(5);
    expect(runs.echo).toBe(5);
    expect(posts(sent, 'initialize')).toHaveLength(2);
    expect(resets).toEqual([{ previousSessionId: old, sessionId: transport.sessionId }]);
    const calls = posts(sent, 'tools/call');
    expect(calls.filter((s) => s.session === transport.sessionId)).toHaveLength(5);
    expect(calls).toHaveLength(10);
    await within(client.close());
  });

  it('an idle client whose GET stream meets the 404 starts the new session unasked', async () => {
    const { client, transport, sent, resets } = await startKeel({}, true);
    const old = transport.sessionId!;
    await vi.waitFor(() => expect(sent.filter((s) => s.method === 'GET')).toHaveLength(1), {
      timeout: 5_000,
    });
    const reset = new Promise<SessionReset>((resolve) => client.on('sessionReset', resolve));
    await deleteSession(keel!.url, old);

    const { sessionId } = await within(reset, 5_000, 'sessionReset without any request');
    expect(sessionId).toBe(transport.sessionId);
    expect(resets).toEqual([{ previousSessionId: old, sessionId }]);
    // The new session gets its own GET stream back.
    await vi.waitFor(
      () => expect(sent.filter((s) => s.method === 'GET' && s.session === sessionId)).toHaveLength(1),
      { timeout: 5_000 },
    );
    expect(posts(sent, 'initialize')).toHaveLength(2);
    await within(client.close());
  });

  it("a call whose stream was open when the session was deleted fails with the server's -32000 and is not resent", async () => {
    const { client, transport, sent, resets, runs, blockStarted } = await startKeel();
    const old = transport.sessionId!;
    const call = outcome(client.callTool('block', {}));
    await within(blockStarted, 5_000, 'block running');
    await deleteSession(keel!.url, old);

    // A DELETE answers each unanswered request once before its stream ends (DESIGN.md, "Ending
    // HTTP streams"; issue 23 item 1): the call fails with that wire error, which may have run.
    const error = await call;
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(-32000);
    expect(runs.block).toBe(1);
    expect(posts(sent, 'tools/call')).toHaveLength(1);

    // The next request gets a new session.
    await within(client.ping());
    expect(resets).toEqual([{ previousSessionId: old, sessionId: transport.sessionId }]);
    expect(runs.block).toBe(1);
    await within(client.close());
  });
});

// ---- against the mock server (exact wire behaviour)

/** initialize → `session-<n>`; `refuse(seen)` → 404 "Session not found"; the rest by the script. */
function sessions(
  refuse: (session: string | undefined, body: any) => boolean,
  more: (body: any, res: ServerResponse, session: string | undefined) => boolean = () => false,
) {
  let n = 0;
  return (
    seen: { method: string; headers: Record<string, unknown>; body: any },
    _req: unknown,
    res: ServerResponse,
  ) => {
    const session = seen.headers['mcp-session-id'] as string | undefined;
    if (seen.body?.method === 'initialize') {
      json(res, initializeResult(seen.body.id), 200, { 'mcp-session-id': `session-${++n}` });
      return true;
    }
    if (session !== undefined && refuse(session, seen.body)) {
      json(res, { jsonrpc: '2.0', error: { code: -32600, message: 'Session not found' } }, 404);
      return true;
    }
    return more(seen.body, res, session);
  };
}

function resetsOf(client: { onsessionreset: ((reset: SessionReset) => void) | undefined }): SessionReset[] {
  const resets: SessionReset[] = [];
  client.onsessionreset = (reset) => resets.push(reset);
  return resets;
}

describe('session renewal on the wire (mock server)', () => {
  it('a second 404 right after re-initializing fails with SessionExpiredError: no loop', async () => {
    // Every session is forgotten at once, except for the handshake's own notification.
    mock = await startMockServer(sessions((_session, body) => body?.method !== 'notifications/initialized'));
    const { client, transport } = await connectClient(mock.url, { openGetStream: false });
    const resets = resetsOf(client);

    const error = await outcome(client.request('tools/list', {}));
    expect(error).toBeInstanceOf(ConnectionClosedError);
    expect((error as Error).cause).toBeInstanceOf(SessionExpiredError);
    expect(((error as Error).cause as SessionExpiredError).sessionId).toBe('session-2');
    expect(mock.posts('initialize')).toHaveLength(2);
    expect(mock.posts('tools/list').map((s) => s.headers['mcp-session-id'])).toEqual([
      'session-1',
      'session-2',
    ]);
    expect(resets).toEqual([{ previousSessionId: 'session-1', sessionId: 'session-2' }]);
    expect(transport.sessionId).toBeUndefined();
    await within(client.close());
  });

  it('a server that forgets each new session at once (GET 404) is not chased: one renewal, no loop', async () => {
    mock = await startMockServer(sessions((_session, body) => body === undefined));
    const initializes: unknown[] = [];
    const recordingFetch: typeof fetch = (input, init) => {
      if (typeof init?.body === 'string' && JSON.parse(init.body).method === 'initialize')
        initializes.push(1);
      return fetch(input, init);
    };
    const { client, transport } = await connectClient(mock.url, { fetch: recordingFetch });
    const reset = new Promise<SessionReset>((resolve) => (client.onsessionreset = resolve));
    expect(await within(reset, 5_000, 'renewal after the first GET 404')).toEqual({
      previousSessionId: 'session-1',
      sessionId: 'session-2',
    });
    // The new session's GET stream meets the 404 too; once the client has taken it in, nothing more.
    await vi.waitFor(() => expect(transport.sessionId).toBeUndefined(), { timeout: 5_000 });
    await new Promise((resolve) => setImmediate(resolve));
    expect(initializes).toHaveLength(2);
    await within(client.close());
    expect(mock.posts('initialize')).toHaveLength(2);
  });

  it('a request whose response stream was lost with the session is not resent; the next one renews', async () => {
    mock = await startMockServer(
      sessions(
        // Only the resumption GET of session-1 meets the 404.
        (session, body) => session === 'session-1' && body === undefined,
        (body, res) => {
          if (body?.method !== 'tools/call') return false;
          const stream = sse(res);
          stream.event({ id: 'c1', retry: 10, data: '' });
          stream.end();
          return true;
        },
      ),
    );
    const { client, transport } = await connectClient(mock.url, { openGetStream: false });
    const resets = resetsOf(client);

    const error = await outcome(client.request('tools/call', { name: 'x', arguments: {} }));
    expect(error).toBeInstanceOf(ConnectionClosedError);
    expect((error as Error).cause).toBeInstanceOf(SessionExpiredError);
    expect(((error as Error).cause as SessionExpiredError).retryable).toBe(false);
    expect(mock.posts('tools/call')).toHaveLength(1);
    expect(mock.posts('initialize')).toHaveLength(1);

    // The transport knows the session is gone: the next request renews it before going out.
    expect(await within(client.request('ping', {}))).toEqual({});
    expect(mock.posts('ping').map((s) => s.headers['mcp-session-id'])).toEqual(['session-2']);
    expect(resets).toEqual([{ previousSessionId: 'session-1', sessionId: transport.sessionId }]);
    expect(mock.posts('tools/call')).toHaveLength(1);
    await within(client.close());
  });

  it('a call still streaming in the old session fails at once when another request meets the 404', async () => {
    let streamClosed!: () => void;
    const closed = new Promise<void>((resolve) => (streamClosed = resolve));
    mock = await startMockServer(
      sessions(
        (session, body) => session === 'session-1' && body?.method === 'tools/list',
        (body, res) => {
          if (body?.method !== 'tools/call') return false;
          sse(res).event({ id: 'b1', retry: 10, data: '' });
          res.on('close', () => streamClosed());
          return true;
        },
      ),
    );
    const { client } = await connectClient(mock.url, { openGetStream: false });
    const blocked = outcome(client.request('tools/call', { name: 'block', arguments: {} }));
    await mock.waitFor((s) => s.body?.method === 'tools/call', 'tools/call POST');

    expect(await within(client.request('tools/list', {}))).toEqual({});
    const error = await blocked;
    expect(error).toBeInstanceOf(ConnectionClosedError);
    expect((error as Error).cause).toBeInstanceOf(SessionExpiredError);
    await within(closed, 2_000, 'the old stream released by the client');
    expect(mock.posts('tools/call')).toHaveLength(1);
    expect(mock.seen.filter((s) => s.method === 'GET')).toEqual([]);
    await within(client.close());
  });

  it("the caller's signal ends its wait for the new session", async () => {
    let initializes = 0;
    const forget = sessions((session, body) => session === 'session-1' && body?.method === 'tools/list');
    mock = await startMockServer((seen, req, res) => {
      // The second initialize is never answered: the handshake hangs.
      if (seen.body?.method === 'initialize' && ++initializes === 2) return true;
      return forget(seen, req, res);
    });
    const { client } = await connectClient(mock.url, { openGetStream: false });
    const abort = new AbortController();
    const call = outcome(client.request('tools/list', {}, { signal: abort.signal }));
    await mock.waitFor(
      (s) => s.body?.method === 'initialize' && mock!.posts('initialize').length === 2,
      'the new initialize',
    );
    abort.abort(new Error('user gave up'));
    const error = await call;
    expect(error).toBeInstanceOf(RequestAbortedError);
    expect(mock.posts('tools/list')).toHaveLength(1);
    await within(client.close());
  });

  it('McpClient with renewSession: false leaves the expired session to the caller', async () => {
    mock = await startMockServer(sessions((session) => session === 'session-1'));
    const transport = new StreamableHttpClientTransport(mock.url, { openGetStream: false });
    const client = await within(McpClient.connect(transport, { era: 'legacy', renewSession: false }));
    const resets: SessionReset[] = [];
    client.on('sessionReset', (reset) => void resets.push(reset));
    const error = await outcome(client.listTools());
    expect(error).toBeInstanceOf(ConnectionClosedError);
    expect((error as Error).cause).toBeInstanceOf(SessionExpiredError);
    expect(mock.posts('initialize')).toHaveLength(1);
    expect(resets).toEqual([]);
    await within(client.close());
  });

  it('a failed re-initialize fails the waiting request; the next request tries again', async () => {
    let initializes = 0;
    const forget = sessions((session, body) => session === 'session-1' && body?.method === 'tools/list');
    mock = await startMockServer((seen, req, res) => {
      if (seen.body?.method === 'initialize' && ++initializes === 2) {
        res.writeHead(500, { 'content-type': 'text/plain' }).end('try later');
        return true;
      }
      return forget(seen, req, res);
    });
    const { client, transport } = await connectClient(mock.url, { openGetStream: false });
    const resets = resetsOf(client);

    const error = await outcome(client.request('tools/list', {}));
    expect(error).toBeInstanceOf(ConnectionClosedError);
    expect(((error as Error).cause as HttpTransportError).status).toBe(500);
    expect(resets).toEqual([]);

    expect(await within(client.request('tools/list', {}))).toEqual({});
    expect(mock.posts('initialize')).toHaveLength(3);
    expect(resets).toEqual([{ previousSessionId: 'session-1', sessionId: transport.sessionId }]);
    // Nothing went out without a session while there was none.
    expect(mock.posts('tools/list').map((s) => s.headers['mcp-session-id'])).toEqual([
      'session-1',
      transport.sessionId,
    ]);
    await within(client.close());
  });

  it('review: a burst of requests against a server whose re-initialize fails makes one handshake and fails every request', async () => {
    let initializes = 0;
    const forget = sessions((session, body) => session === 'session-1' && body?.method === 'tools/list');
    mock = await startMockServer((seen, req, res) => {
      if (seen.body?.method === 'initialize' && ++initializes >= 2) {
        res.writeHead(500, { 'content-type': 'text/plain' }).end('down');
        return true;
      }
      return forget(seen, req, res);
    });
    const { client } = await connectClient(mock.url, { openGetStream: false });
    const burst = await Promise.all([1, 2, 3, 4].map(() => outcome(client.request('tools/list', {}))));
    for (const error of burst) expect(error).toBeInstanceOf(ConnectionClosedError);
    // The first handshake plus exactly one renewal attempt for the whole burst.
    expect(mock.posts('initialize')).toHaveLength(2);
    await within(client.close());
  });
});
