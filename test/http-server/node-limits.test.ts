/**
 * Issue 9 items 9 and 10: `serveHttp` sets `node:http` limits (a slow request is cut, a long SSE
 * response is not, connections are capped), and an answer sent before the body was read (413)
 * reaches a client that is still writing: the rest of the body is read and discarded, within
 * bounds, before the connection closes.
 */
import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { expect, test } from 'vitest';
import { SERVE_HTTP_DEFAULTS } from 'keel-mcp/node';
import { useProcessGuard, within } from '../helpers/guard.js';
import {
  callTool,
  initializeRequest,
  JSON_AND_SSE,
  openSession,
  post,
  startHarness,
} from './support/harness.js';

useProcessGuard();

const FIVE_MB = 5 * 1024 * 1024;

/** A raw connection to the harness, with everything it received. */
function rawSocket(url: string): Promise<{ socket: Socket; received: () => string; closed: Promise<void> }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    let text = '';
    const socket = connect(Number(port), hostname, () => resolve({ socket, received: () => text, closed }));
    const closed = new Promise<void>((done) => socket.once('close', () => done()));
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    socket.on('error', () => undefined); // a reset once the server cuts us: expected
    socket.once('error', reject);
  });
}

/** Write `chunk` every `everyMs` until the socket closes or `max` chunks went out; returns the count. */
async function trickle(socket: Socket, chunk: string, everyMs: number, max: number): Promise<number> {
  let sent = 0;
  while (sent < max && !socket.destroyed && socket.writable) {
    socket.write(chunk);
    sent++;
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  return sent;
}

/**
 * POST `size` bytes of body with Node's http client, in 64 KiB writes; resolves once the
 * connection closed, with the status and any error the client met (a reset while it was still
 * writing shows up as EPIPE or ECONNRESET, even after the response arrived).
 */
function postLarge(
  url: string,
  size: number,
  declareLength: boolean,
): Promise<{ status: number | undefined; error: string | undefined }> {
  return new Promise((resolve) => {
    let status: number | undefined;
    let error: string | undefined;
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: JSON_AND_SSE };
    if (declareLength) headers['content-length'] = String(size);
    const req = httpRequest(url, { method: 'POST', headers, agent: false }, (res) => {
      status = res.statusCode;
      res.resume();
      res.once('error', (e) => (error ??= e.message));
    });
    req.on('error', (e: NodeJS.ErrnoException) => (error ??= e.code ?? e.message));
    req.once('close', () => resolve({ status, error }));
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    let left = size;
    const pump = (): void => {
      while (left > 0) {
        const piece = left >= chunk.length ? chunk : chunk.subarray(0, left);
        left -= piece.length;
        if (!req.write(piece)) {
          req.once('drain', pump);
          return;
        }
      }
      req.end();
    };
    pump();
  });
}

test('serveHttp sets safe node:http defaults', async () => {
  const harness = await startHarness();
  try {
    const server = harness.serving.server;
    expect(server.requestTimeout).toBe(SERVE_HTTP_DEFAULTS.requestTimeout);
    expect(server.headersTimeout).toBe(SERVE_HTTP_DEFAULTS.headersTimeout);
    expect(server.keepAliveTimeout).toBe(SERVE_HTTP_DEFAULTS.keepAliveTimeout);
    expect(server.maxConnections).toBe(SERVE_HTTP_DEFAULTS.maxConnections);
    expect(SERVE_HTTP_DEFAULTS.requestTimeout).toBeLessThan(300_000); // Node's own default
  } finally {
    await harness.close();
  }
});

test('a slowloris body is cut at requestTimeout with 408', async () => {
  const harness = await startHarness({ requestTimeout: 300, headersTimeout: 200 });
  try {
    const raw = await rawSocket(harness.url);
    raw.socket.write(
      'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
        `Accept: ${JSON_AND_SSE}\r\nContent-Length: 1000\r\n\r\n`,
    );
    // One byte every 20 ms would take 20 s; the server must cut it long before the end.
    const sent = await within(trickle(raw.socket, ' ', 20, 1000), 15_000, 'trickle');
    await within(raw.closed, 5_000, 'server closes the connection');
    expect(sent).toBeLessThan(1000);
    expect(raw.received()).toMatch(/^HTTP\/1\.1 408 /);
  } finally {
    await harness.close();
  }
});

test('slow headers are cut at headersTimeout', async () => {
  const harness = await startHarness({ requestTimeout: 1_000, headersTimeout: 200 });
  try {
    const raw = await rawSocket(harness.url);
    raw.socket.write('POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    const sent = await within(trickle(raw.socket, 'X-Slow: y\r\n', 20, 1000), 15_000, 'trickle');
    await within(raw.closed, 5_000, 'server closes the connection');
    expect(sent).toBeLessThan(1000);
    expect(raw.received()).toMatch(/^HTTP\/1\.1 408 /);
  } finally {
    await harness.close();
  }
});

/** Reads a streamed body as text, counting keep-alive comments. */
async function countKeepAlives(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  wanted: number,
): Promise<string> {
  const decoder = new TextDecoder();
  let text = '';
  while ((text.match(/: keep-alive/g) ?? []).length < wanted) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`stream ended after ${text.length} chars`);
    text += decoder.decode(value, { stream: true });
  }
  return text;
}

test('SSE streams outlive requestTimeout (it covers receiving the request only)', async () => {
  // 20 keep-alives 50 ms apart span ≥ 950 ms: more than 4× requestTimeout plus its check interval.
  const harness = await startHarness({ requestTimeout: 200, headersTimeout: 100, keepAliveMs: 50 });
  try {
    const sessionId = await openSession(harness.url);
    const get = await fetch(harness.url, {
      headers: { accept: 'text/event-stream', 'mcp-session-id': sessionId },
    });
    expect(get.status).toBe(200);
    const getReader = get.body!.getReader();
    const gated = await post(harness.url, callTool(7, 'gated', { key: 'g' }), { sessionId });
    expect(gated.headers.get('content-type')).toContain('text/event-stream');
    const postReader = gated.body!.getReader();
    await within(Promise.all([countKeepAlives(getReader, 20), countKeepAlives(postReader, 20)]), 15_000);
    // Both streams still carry messages.
    const session = [...harness.server.sessions][0]!;
    await session.notify('notifications/message', { level: 'info', data: 'still here' });
    harness.probes.for(harness.probes.gates, 'g').resolve();
    const decoder = new TextDecoder();
    let getText = '';
    while (!getText.includes('still here')) {
      const { done, value } = await within(getReader.read());
      if (done) throw new Error('GET stream ended');
      getText += decoder.decode(value, { stream: true });
    }
    let postText = '';
    for (;;) {
      const { done, value } = await within(postReader.read());
      if (done) break;
      postText += decoder.decode(value, { stream: true });
    }
    expect(postText).toContain('gated g done');
    await getReader.cancel();
  } finally {
    await harness.close();
  }
});

test('connections past maxConnections are dropped; the ones inside keep working', async () => {
  const harness = await startHarness({ maxConnections: 2 });
  try {
    const server = harness.serving.server;
    const accepted = new Promise<void>((resolve) => {
      let count = 0;
      server.on('connection', () => {
        if (++count === 2) resolve();
      });
    });
    const first = await rawSocket(harness.url);
    const second = await rawSocket(harness.url);
    await within(accepted, 5_000, 'two connections accepted');
    const dropped = new Promise<void>((resolve) => server.once('drop', () => resolve()));
    const third = await rawSocket(harness.url);
    await within(dropped, 5_000, 'third connection dropped');
    await within(third.closed, 5_000, 'third connection closed');
    expect(third.received()).toBe('');
    const body = JSON.stringify(initializeRequest());
    first.socket.write(
      'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
        `Accept: ${JSON_AND_SSE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
    await within(first.closed, 5_000, 'first connection answered');
    expect(first.received()).toMatch(/^HTTP\/1\.1 200 /);
    second.socket.destroy();
  } finally {
    await harness.close();
  }
});

test('a 5 MB body over the limit: Node http client sees the 413 every time (20 runs)', async () => {
  const harness = await startHarness();
  try {
    const results: { status: number | undefined; error: string | undefined }[] = [];
    for (let i = 0; i < 20; i++) {
      results.push(await within(postLarge(harness.url, FIVE_MB, i % 2 === 0), 20_000, `run ${i}`));
    }
    expect(results).toEqual(Array.from({ length: 20 }, () => ({ status: 413, error: undefined })));
  } finally {
    await harness.close();
  }
}, 60_000);

test('a client that keeps sending after the 413 is cut at the byte bound', async () => {
  const harness = await startHarness({
    maxBodyBytes: 1024,
    discardBody: { ms: 60_000, bytes: 64 * 1024 },
  });
  try {
    const raw = await rawSocket(harness.url);
    raw.socket.write(
      'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
        `Accept: ${JSON_AND_SSE}\r\nTransfer-Encoding: chunked\r\n\r\n`,
    );
    const chunk = `${(4096).toString(16)}\r\n${' '.repeat(4096)}\r\n`;
    // 4,000 chunks of 4 KiB = 16 MB: far past the 64 KiB bound.
    const sent = await within(trickle(raw.socket, chunk, 1, 4000), 30_000, 'sender');
    await within(raw.closed, 5_000, 'server cuts the connection');
    expect(sent).toBeLessThan(4000);
    expect(raw.received()).toMatch(/^HTTP\/1\.1 413 /);
    expect(raw.received().toLowerCase()).toContain('connection: close');
  } finally {
    await harness.close();
  }
});

test('a client that keeps sending after the 413 is cut at the time bound', async () => {
  const harness = await startHarness({
    maxBodyBytes: 1024,
    discardBody: { ms: 200, bytes: 1024 * 1024 * 1024 },
  });
  try {
    const raw = await rawSocket(harness.url);
    raw.socket.write(
      'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
        `Accept: ${JSON_AND_SSE}\r\nContent-Length: 100000000\r\n\r\n`,
    );
    // One small write every 10 ms, for up to 20 s: only the 200 ms discard bound can stop it.
    const sent = await within(trickle(raw.socket, ' '.repeat(100), 10, 2000), 30_000, 'sender');
    await within(raw.closed, 5_000, 'server cuts the connection');
    expect(sent).toBeLessThan(2000);
    expect(raw.received()).toMatch(/^HTTP\/1\.1 413 /);
  } finally {
    await harness.close();
  }
});
