/**
 * The "Keel via web Request/Response" bench setup really takes the web path: every request reaches
 * Keel's handler as a web `Request` through the bridge (none is served by the `node:http` fast
 * path), and the answers the load generator checks come back intact.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createBenchServer } from '../../bench/servers/keel-tools.js';
import { serveViaWebBridge } from '../../bench/servers/keel-web-bridge.js';
import { SERVE_EXCHANGE } from '../../src/transports/http/server-wire/exchange.js';
import { createHttpHandler, type HttpHandler } from 'keel-mcp/http';
import { useProcessGuard, within } from '../helpers/guard.js';
import { INITIALIZE, postJson } from './http-post.js';

describe('bench web Request/Response bridge', () => {
  useProcessGuard();
  let handler: HttpHandler | undefined;
  let server: Server | undefined;
  afterEach(async () => {
    await handler?.close({ deadlineMs: 1_000 });
    if (server) {
      const stopped = new Promise<void>((resolve) => server!.close(() => resolve()));
      server.closeAllConnections();
      await within(stopped, 5_000, 'server close');
    }
    handler = server = undefined;
  });

  it('hands every request to the handler as a web Request and serves a tool call', async () => {
    const keel = (handler = createHttpHandler(createBenchServer()));
    const seen: unknown[] = [];
    const spy = (request: Request, extra?: Parameters<HttpHandler>[1]): Promise<Response> => {
      seen.push(request);
      return keel(request, extra);
    };
    // The spy carries the fast-path marker of Keel's handler, as Keel's handler itself does: the
    // bridge must still go through web objects (the fast path would never call the spy).
    const marked = Object.assign(spy, { [SERVE_EXCHANGE]: keel[SERVE_EXCHANGE as never] });
    server = await serveViaWebBridge(marked, 0);
    const { port } = server.address() as AddressInfo;

    const init = await within(postJson(port, INITIALIZE));
    expect(init.status).toBe(200);
    const sessionId = init.headers['mcp-session-id'];
    expect(typeof sessionId).toBe('string');
    const headers = { 'mcp-session-id': sessionId as string, 'mcp-protocol-version': '2025-11-25' };
    const ack = await within(
      postJson(port, '{"jsonrpc":"2.0","method":"notifications/initialized"}', headers),
    );
    expect(ack.status).toBe(202);
    const call = await within(
      postJson(
        port,
        '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"via web"}}}',
        headers,
      ),
    );
    expect(call.status).toBe(200);
    expect(call.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(call.text)).toEqual({
      jsonrpc: '2.0',
      id: 2,
      result: { content: [{ type: 'text', text: 'via web' }] },
    });

    expect(seen).toHaveLength(3);
    for (const request of seen) expect(request).toBeInstanceOf(Request);
  });
});
