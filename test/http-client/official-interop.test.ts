/**
 * Interop: Keel's low-level Client over the Streamable HTTP client transport, against a server
 * built with the official SDK (McpServer + StreamableHTTPServerTransport + an event store).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ConnectionClosedError, RequestAbortedError } from 'keel-mcp/core';
import { SessionExpiredError } from 'keel-mcp/http';
import { useProcessGuard, within } from '../helpers/guard.js';
import { startOfficialServer, type OfficialServer } from './fixtures/official-http-server.mjs';
import { connectClient, outcome } from './support/connect.js';

useProcessGuard();

let server: OfficialServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function watchBlock(server: OfficialServer): { started: Promise<void>; aborted: Promise<void> } {
  const started = new Promise<void>((resolve) => (server.state.blockStarted = resolve));
  const aborted = new Promise<void>((resolve) => (server.state.blockAbortedHook = resolve));
  return { started, aborted };
}

function text(result: Record<string, unknown>): string {
  return (result.content as { text: string }[])[0]!.text;
}

describe('Streamable HTTP client transport ⇄ official SDK server', () => {
  it('handshakes, keeps the session, lists and calls tools, and DELETEs the session on close', async () => {
    server = await startOfficialServer();
    const { client, transport } = await connectClient(server.url);
    expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(transport.protocolVersion).toBe('2025-11-25');

    const tools = await within(client.request('tools/list', {}));
    expect((tools.tools as { name: string }[]).map((t) => t.name)).toEqual(['echo', 'drop-stream', 'block']);
    expect(
      text(await within(client.request('tools/call', { name: 'echo', arguments: { text: 'hi' } }))),
    ).toBe('hi');

    const sessionId = transport.sessionId!;
    await within(client.close());
    expect(server.state.deletedSessions).toEqual([sessionId]);
    expect(server.sessionCount()).toBe(0);
    // The standalone GET stream was open (the official server offers one).
    expect(server.state.requests.some((r) => r.method === 'GET' && !r.headers['last-event-id'])).toBe(true);
  });

  it('resumes a stream the server dropped mid-call (closeSSEStream) and gets everything', async () => {
    server = await startOfficialServer({ retryInterval: 50 });
    const { client } = await connectClient(server.url);
    const logs: unknown[] = [];
    client.setNotificationHandler('notifications/message', (params) => void logs.push(params.data));

    const result = await within(client.request('tools/call', { name: 'drop-stream', arguments: {} }));
    expect(text(result)).toBe('survived the drop');
    expect(server.state.closeSSEStreamOffered).toBe(true);
    expect(server.state.drops).toBe(1);
    expect(logs).toEqual(['before drop', 'after drop']);
    const resumes = server.state.requests.filter((r) => r.method === 'GET' && r.headers['last-event-id']);
    expect(resumes).toHaveLength(1);
    expect(resumes[0]!.headers['mcp-protocol-version']).toBe('2025-11-25');
    // A dropped stream is not a cancellation (legacy HTTP): nothing told the server to stop.
    expect(server.state.requests.filter((r) => r.body?.method === 'notifications/cancelled')).toEqual([]);
    await within(client.close());
  });

  it('caller abort cancels the tool on the server; the session keeps serving', async () => {
    server = await startOfficialServer();
    const { started, aborted } = watchBlock(server);
    const { client } = await connectClient(server.url);
    const abort = new AbortController();
    const pending = outcome(
      client.request('tools/call', { name: 'block', arguments: {} }, { signal: abort.signal }),
    );
    await within(started, 5_000, 'block tool started');
    abort.abort();
    expect(await pending).toBeInstanceOf(RequestAbortedError);
    await within(aborted, 2_000, 'server handler aborted');
    expect(server.state.blockAborted).toBe(1);
    expect(
      text(await within(client.request('tools/call', { name: 'echo', arguments: { text: 'still here' } }))),
    ).toBe('still here');
    await within(client.close());
  });

  it('close during a call: the call fails as connection closed, the DELETE aborts the server handler', async () => {
    server = await startOfficialServer();
    const { started, aborted } = watchBlock(server);
    const { client, transport } = await connectClient(server.url);
    const sessionId = transport.sessionId!;
    const pending = outcome(client.request('tools/call', { name: 'block', arguments: {} }));
    await within(started, 5_000, 'block tool started');
    await within(client.close());
    expect(await pending).toBeInstanceOf(ConnectionClosedError);
    await within(aborted, 2_000, 'server handler aborted by the DELETE');
    expect(server.state.deletedSessions).toEqual([sessionId]);
  });

  it('a session the server ended is replaced by a new one; the request is resent there', async () => {
    server = await startOfficialServer();
    const { client, transport } = await connectClient(server.url);
    const expired: string[] = [];
    transport.onsessionexpired = (error) => expired.push(error.sessionId);
    const resets: unknown[] = [];
    client.onsessionreset = (reset) => resets.push(reset);
    const sessionId = transport.sessionId!;
    await server.expireSessions();

    const tools = await within(client.request('tools/list', {}));
    expect((tools.tools as unknown[]).length).toBe(3);
    const renewed = transport.sessionId!;
    expect(renewed).toMatch(/^[0-9a-f-]{36}$/);
    expect(renewed).not.toBe(sessionId);
    expect(expired).toEqual([sessionId]);
    expect(resets).toEqual([{ previousSessionId: sessionId, sessionId: renewed }]);
    await within(client.close());
    expect(
      server.state.requests.filter((r) => r.method === 'DELETE').map((r) => r.headers['mcp-session-id']),
    ).toEqual([renewed]);
  });

  it('with renewSession off, a session the server ended surfaces as SessionExpiredError; close() skips the DELETE', async () => {
    server = await startOfficialServer();
    const { client, transport } = await connectClient(server.url, {}, { renewSession: false });
    const expired: string[] = [];
    transport.onsessionexpired = (error) => expired.push(error.sessionId);
    const sessionId = transport.sessionId!;
    await server.expireSessions();

    const error = await outcome(client.request('tools/list', {}));
    expect(error).toBeInstanceOf(ConnectionClosedError);
    expect((error as Error).cause).toBeInstanceOf(SessionExpiredError);
    expect(expired).toEqual([sessionId]);
    await within(client.close());
    expect(server.state.requests.filter((r) => r.method === 'DELETE')).toEqual([]);
  });
});
