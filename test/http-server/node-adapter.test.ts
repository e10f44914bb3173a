/**
 * The node:http adapter on its own: errors become 500s, a client that disconnects cancels the
 * response body and aborts `request.signal`, and headers and auth pass through. Keel's own handler
 * is served on the Node objects directly (no `Request`/`Response`).
 */
import {
  createServer,
  request,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server as NodeServer,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from 'vitest';
import { toNodeListener } from 'keel-mcp/node';
import { Server } from 'keel-mcp/server';
import { createHttpHandler } from 'keel-mcp/http';
import { useProcessGuard, within } from '../helpers/guard.js';
import { deferred, initializeRequest, JSON_AND_SSE } from './support/harness.js';

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

/** A raw node:http POST, so the test sees the framing headers fetch would hide. */
function rawPost(
  url: string,
  body: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: JSON_AND_SSE, ...headers },
    });
    req.once('error', reject);
    req.once('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.once('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.end(body);
  });
}

test("Keel's handler is written directly: JSON answers carry Content-Length, not chunked framing", async () => {
  const keel = new Server({ name: 'direct', version: '1.0.0' }, { capabilities: {} });
  const handler = createHttpHandler(keel, { sessions: false });
  const host = await listen(handler);
  try {
    const answer = await within(rawPost(host.url, JSON.stringify(initializeRequest(7))), 5_000, 'answer');
    expect(answer.status).toBe(200);
    expect(answer.headers['transfer-encoding']).toBeUndefined();
    expect(Number(answer.headers['content-length'])).toBe(Buffer.byteLength(answer.body));
    expect((JSON.parse(answer.body) as { id: number }).id).toBe(7);
  } finally {
    await handler.close({ deadlineMs: 1_000 });
    await host.close();
  }
});

test('a body already consumed by middleware is a 400 parse error, never a hang', async () => {
  const keel = new Server({ name: 'direct', version: '1.0.0' }, { capabilities: {} });
  const handler = createHttpHandler(keel, { sessions: false });
  const listener = toNodeListener(handler);
  const server = createServer((req, res) => {
    req.resume();
    req.once('end', () => listener(req, res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  try {
    const answer = await within(
      rawPost(`http://127.0.0.1:${port}/`, JSON.stringify(initializeRequest())),
      5_000,
      'answer',
    );
    expect(answer.status).toBe(400);
    expect((JSON.parse(answer.body) as { error: { code: number } }).error.code).toBe(-32700);
  } finally {
    await handler.close({ deadlineMs: 1_000 });
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }
});

/** POST 5 MB with Node's http client; resolves once the connection closed, with what it met. */
function postFiveMegabytes(url: string): Promise<{ status: number | undefined; error: string | undefined }> {
  return new Promise((resolve) => {
    let status: number | undefined;
    let error: string | undefined;
    const req = request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      agent: false,
    });
    req.once('response', (res) => {
      status = res.statusCode;
      res.resume();
    });
    req.on('error', (e: NodeJS.ErrnoException) => (error ??= e.code ?? e.message));
    req.once('close', () => resolve({ status, error }));
    req.end(Buffer.alloc(5 * 1024 * 1024, 0x20));
  });
}

test('a fetch handler that answers without reading the body: the client still gets the answer (10 runs)', async () => {
  const host = await listen(async () => new Response('too large', { status: 413 }));
  try {
    for (let i = 0; i < 10; i++) {
      expect(await within(postFiveMegabytes(host.url), 10_000, `run ${i}`)).toEqual({
        status: 413,
        error: undefined,
      });
    }
  } finally {
    await host.close();
  }
});

test('a fetch handler gets the remote address as extra.remoteAddress', async () => {
  const host = await listen(async (_request, extra) =>
    Response.json({
      remoteAddress: (extra as { remoteAddress?: string } | undefined)?.remoteAddress ?? null,
    }),
  );
  try {
    const response = await fetch(host.url);
    expect(await response.json()).toEqual({ remoteAddress: '127.0.0.1' });
  } finally {
    await host.close();
  }
});
