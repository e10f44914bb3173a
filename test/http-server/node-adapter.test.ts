/**
 * The node:http adapter on its own: errors become 500s, a client that disconnects cancels the
 * response body and aborts `request.signal`, and headers and auth pass through.
 */
import { createServer, type IncomingMessage, type Server as NodeServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from 'vitest';
import { toNodeListener } from '../../src/adapters/node/index.js';
import { useProcessGuard, within } from '../helpers/guard.js';
import { deferred } from './support/harness.js';

useProcessGuard();

async function listen(
  handler: (request: Request, extra?: { authInfo?: unknown }) => Promise<Response>,
  before?: (req: IncomingMessage) => void,
): Promise<{ url: string; server: NodeServer; close(): Promise<void> }> {
  const listener = toNodeListener(handler);
  const server = createServer((req, res) => {
    before?.(req);
    listener(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

test('a throwing handler becomes a 500 with a JSON-RPC error body', async () => {
  const host = await listen(() => Promise.reject(new Error('boom')));
  try {
    const response = await fetch(host.url, { method: 'POST', body: '{}' });
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32603, message: 'Internal server error' },
    });
  } finally {
    await host.close();
  }
});

test('a client that disconnects mid-stream cancels the body and aborts request.signal', async () => {
  const cancelled = deferred<void>();
  const aborted = deferred<void>();
  const host = await listen(async (request) => {
    request.signal.addEventListener('abort', () => aborted.resolve());
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('data: hello\n\n'));
      },
      cancel() {
        cancelled.resolve();
      },
    });
    return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
  });
  try {
    const client = new AbortController();
    const response = await fetch(host.url, { signal: client.signal });
    const reader = response.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('data: hello\n\n');
    client.abort();
    await reader.cancel().catch(() => undefined);
    await within(Promise.all([cancelled.promise, aborted.promise]), 5_000, 'cancel and abort');
  } finally {
    await host.close();
  }
});

test('headers, repeated set-cookie, request body and req.auth pass through', async () => {
  const host = await listen(
    async (request, extra) => {
      const text = await request.text();
      const headers = new Headers({
        'content-type': 'application/json',
        'x-echo': request.headers.get('x-in') ?? '',
      });
      headers.append('set-cookie', 'a=1');
      headers.append('set-cookie', 'b=2');
      return new Response(JSON.stringify({ text, auth: extra?.authInfo ?? null, method: request.method }), {
        status: 201,
        headers,
      });
    },
    (req) => {
      (req as IncomingMessage & { auth?: unknown }).auth = { token: 't' };
    },
  );
  try {
    const response = await fetch(`${host.url}?q=1`, {
      method: 'POST',
      headers: { 'x-in': 'v' },
      body: 'payload',
    });
    expect(response.status).toBe(201);
    expect(response.headers.get('x-echo')).toBe('v');
    expect(response.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    expect(await response.json()).toEqual({ text: 'payload', auth: { token: 't' }, method: 'POST' });
  } finally {
    await host.close();
  }
});
