/**
 * Lifecycle over real HTTP with Keel's McpClient and server: the server dies mid-call (scenario 12),
 * the client deletes its session while a handler waits on elicitation (scenario 19 driven by the
 * client's own close), another holder of the session id deletes it while the client waits
 * (issue 23 item 1), and the server shuts down with a client mid-call (scenario 22). In every case
 * the pending call must settle promptly with the right error, never hang.
 */
import { describe, expect, test } from 'vitest';
import { ConnectionClosedError, ErrorCode, LocalError, McpError } from 'keel-mcp/core';
import { useProcessGuard, within } from '../helpers/guard.js';
import { spawnFixtureHttp } from './support/http-child.js';
import { rawPost } from './support/http-server.js';
import { connectWaitingClient, settle, startProbeHttp } from './support/probe-http.js';

useProcessGuard();

const BLOCKED_ON = [
  { when: 'response not started yet (POST pending)', tool: 'e2e_block' },
  { when: 'SSE response open, handler awaiting elicitation', tool: 'e2e_ask' },
] as const;

describe('scenario 12 over HTTP: the server dies mid-call', () => {
  for (const { when, tool } of BLOCKED_ON) {
    test(`connections destroyed, listener gone (${when}): the call rejects with ConnectionClosedError`, async () => {
      const { host, probes, ended } = await startProbeHttp();
      const { client, asked } = await connectWaitingClient(host.url);
      let closeEvents = 0;
      client.on('close', () => void closeEvents++);
      const call = settle(client.callTool(tool, {}));
      await probes.nth('started');
      if (tool === 'e2e_ask') await asked();

      // The server goes away without any goodbye: no new connections, every socket destroyed.
      host.serving.server.close();
      host.serving.server.closeAllConnections();
      const error = await call;
      expect(error).toBeInstanceOf(ConnectionClosedError);
      expect(error).not.toBeInstanceOf(McpError);

      await within(client.close(), 5_000, 'client close against a dead server');
      expect(closeEvents).toBe(1);
      // The orphaned session still holds the handler: shutting the handler down aborts it.
      await host.close();
      expect(probes.events.slice(1)[0]).toEqual({ event: 'aborted', reason: 'ConnectionClosedError' });
      expect(ended).toEqual(['shutdown']);
    });
  }

  test('the server process is SIGKILLed mid-call: the call rejects with ConnectionClosedError', async () => {
    const server = await spawnFixtureHttp();
    try {
      const { client, asked } = await connectWaitingClient(server.url, { reconnect: { maxAttempts: 1 } });
      const call = settle(client.callTool('test_elicitation', { message: 'Still there?' }), 10_000);
      const clientHandlerSignal = await asked();
      await server.kill();

      const error = await call;
      expect(error).toBeInstanceOf(ConnectionClosedError);
      expect(error).not.toBeInstanceOf(McpError);
      // The elicitation came on the call's stream: giving the call up ends the client's handler too.
      expect(clientHandlerSignal.aborted).toBe(true);
      await within(client.close(), 5_000, 'client close against a dead server');
      expect(client.isConnected).toBe(false);
    } finally {
      await server.kill();
    }
  });
});

describe('session DELETE by client.close() with a server handler mid-call', () => {
  for (const { when, tool } of BLOCKED_ON) {
    test(`${when}: the call rejects locally, the session is gone (404), the server handler is aborted`, async () => {
      const { host, probes, ended } = await startProbeHttp();
      try {
        const { client, transport, asked } = await connectWaitingClient(host.url);
        const sessionId = transport.sessionId!;
        const call = settle(client.callTool(tool, {}));
        await probes.nth('started');
        const clientHandlerSignal = tool === 'e2e_ask' ? await asked() : undefined;

        await within(client.close(), 5_000, 'client close (DELETE)');
        const error = await call;
        expect(error).toBeInstanceOf(ConnectionClosedError);
        expect(error).toBeInstanceOf(LocalError);
        if (clientHandlerSignal) expect(clientHandlerSignal.aborted).toBe(true);

        expect(ended).toEqual(['deleted']);
        expect(host.serving.handler.sessionCount).toBe(0);
        const late = await rawPost(
          host.url,
          { jsonrpc: '2.0', id: 9, method: 'ping' },
          { 'mcp-session-id': sessionId },
        );
        expect(late.status).toBe(404);
        await late.body?.cancel();

        // The DELETE is answered after the session's teardown, so the handler's fate is known
        // now: aborted by the session's end — not failed by a wire error (-32000) that the
        // closing client posted as its answer to the elicitation before sending the DELETE.
        expect(probes.events.slice(1)[0], 'what the server handler saw first after it started').toEqual({
          event: 'aborted',
          reason: 'ConnectionClosedError',
        });
      } finally {
        await host.close();
      }
    });
  }
});

describe('issue 23 item 1: another holder of the session id DELETEs it while a Keel client waits', () => {
  for (const { when, tool } of BLOCKED_ON) {
    test(`${when}: the call rejects at once with the server's -32000 (no resume, no resend), the handler is aborted`, async () => {
      const { host, probes, ended } = await startProbeHttp();
      try {
        const { client, transport, asked } = await connectWaitingClient(host.url);
        const sessionId = transport.sessionId!;
        let resets = 0;
        client.on('sessionReset', () => void resets++);
        const call = settle(client.callTool(tool, {}));
        await probes.nth('started');
        if (tool === 'e2e_ask') await asked();

        const deleted = await fetch(host.url, { method: 'DELETE', headers: { 'mcp-session-id': sessionId } });
        expect(deleted.status).toBe(200);
        await deleted.body?.cancel();

        // The server's one answer on the call's stream: a wire error, not a lost stream (which
        // would resume, meet the 404, and fail locally with SessionExpiredError as its cause).
        const error = await call;
        expect(error).toBeInstanceOf(McpError);
        expect((error as McpError).code).toBe(ErrorCode.ConnectionClosed);
        expect(probes.events.slice(1)[0]).toEqual({ event: 'aborted', reason: 'ConnectionClosedError' });
        expect(ended).toEqual(['deleted']);
        expect(resets).toBe(0);

        // The client goes on in a new session.
        await within(client.ping(), 5_000, 'ping in a new session');
        expect(transport.sessionId).not.toBe(sessionId);
        expect(resets).toBe(1);
        await within(client.close(), 5_000, 'client close');
      } finally {
        await host.close();
      }
    });
  }
});

describe('server shutdown (serveHttp close) with a client mid-call', () => {
  for (const { when, tool } of BLOCKED_ON) {
    // A server-side end answers each open request once, whatever the option (DESIGN.md "Ending
    // HTTP streams").
    for (const answerOnClose of [true, false]) {
      test(`${when}, answerOnClose ${answerOnClose}: handler aborted, the call settles promptly with the server's -32000`, async () => {
        const { host, probes, ended } = await startProbeHttp({ connection: { answerOnClose } });
        const { client, asked } = await connectWaitingClient(host.url);
        const call = settle(client.callTool(tool, {}));
        await probes.nth('started');
        if (tool === 'e2e_ask') await asked();

        await host.close();
        expect(probes.events.slice(1)[0]).toEqual({ event: 'aborted', reason: 'ConnectionClosedError' });
        expect(ended).toEqual(['shutdown']);
        expect(host.serving.handler.sessionCount).toBe(0);

        const error = await call;
        // The server's one shutdown answer: a wire error, so an McpError with the -32000 code.
        expect(error).toBeInstanceOf(McpError);
        expect((error as McpError).code).toBe(ErrorCode.ConnectionClosed);
        // The server is gone: a new request fails fast and locally.
        expect(await settle(client.ping())).toBeInstanceOf(LocalError);
        await within(client.close(), 5_000, 'client close after server shutdown');
      });
    }
  }
});
