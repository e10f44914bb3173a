/**
 * Issue 9 item 5: a client that stops reading while keeping its socket open must not pin the
 * server's memory. Past `maxQueuedBytesPerStream` its connection is destroyed (not ended: an end
 * would keep the backlog queued); past `maxQueuedBytes` across the handler, the connection with
 * the most queued goes. A resumable stream lives on in the event store. Real sockets, small limits.
 */
import { connect, type Socket } from 'node:net';
import { expect, test } from 'vitest';
import { serveHttp, type ServeHttpOptions } from 'keel-mcp/node';
import type { JsonObject } from 'keel-mcp/core';
import { Server } from 'keel-mcp/server';
import { useProcessGuard, within } from '../helpers/guard.js';
import { createHttpHandler } from 'keel-mcp/http';
import { call, initialize } from './support/direct.js';
import { deferred, openSession, ping, post, SseReader, type Deferred } from './support/harness.js';

useProcessGuard();

/** Upper bound on what a flood writes, so a test that goes wrong still ends. */
const MAX_FLOOD = 20_000;
const CHUNK = 'x'.repeat(4_096);

/**
 * `flood` sends `count` 4 KiB log notifications (or, without a count, until `stop` resolves),
 * yielding to I/O between them so a reading client keeps up.
 */
function floodServer(stop: Deferred<void>): Server {
  const server = new Server({ name: 'flood', version: '1' }, { capabilities: { tools: {}, logging: {} } });
  server.setRequestHandler('tools/call', async (params, ctx) => {
    const asked = (params.arguments as JsonObject | undefined)?.count;
    // Without a count: flood until the test says stop.
    const count = typeof asked === 'number' ? Math.min(asked, MAX_FLOOD) : MAX_FLOOD;
    let sent = 0;
    while (sent < count && !(asked === undefined && stop.settled)) {
      await ctx.notify('notifications/message', { level: 'info', data: CHUNK });
      sent++;
      await new Promise((resolve) => setImmediate(resolve));
    }
    return { content: [{ type: 'text', text: `sent ${sent}` }] };
  });
  return server;
}

async function startFloodServer(options: ServeHttpOptions) {
  const stop = deferred<void>();
  const server = floodServer(stop);
  const serving = await serveHttp(server, { port: 0, keepAliveMs: 0, ...options });
  const serverSockets = new Map<number, Socket>();
  serving.server.on('connection', (socket: Socket) => serverSockets.set(socket.remotePort!, socket));
  return { serving, stop, serverSockets };
}

/**
 * A raw HTTP client that POSTs a flood call, reads until the priming event's id, then stops
 * reading while keeping the socket open.
 */
async function stalledCall(url: string, sessionId: string): Promise<{ socket: Socket; primingId: string }> {
  const { hostname, port, pathname } = new URL(url);
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'flood', arguments: {} },
  });
  const socket = connect(Number(port), hostname);
  await within(new Promise((resolve) => socket.once('connect', resolve)), 5_000, 'connect');
  socket.write(
    `POST ${pathname} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nContent-Type: application/json\r\n` +
      `Accept: application/json, text/event-stream\r\nMcp-Session-Id: ${sessionId}\r\n` +
      `Mcp-Protocol-Version: 2025-11-25\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  let text = '';
  const primingId = await within(
    new Promise<string>((resolve, reject) => {
      const onData = (chunk: Buffer): void => {
        text += chunk.toString('latin1');
        const match = /\nid: (\S+)\nretry:/.exec(text);
        if (!match) return;
        socket.off('data', onData);
        socket.pause(); // stop reading: from here on the server's output queues up
        resolve(match[1]!);
      };
      socket.on('data', onData);
      socket.once('error', reject);
    }),
    5_000,
    'priming event',
  );
  return { socket, primingId };
}

function closed(socket: Socket | undefined, what: string): Promise<void> {
  if (!socket) throw new Error(`no server socket for ${what}`);
  return within(
    new Promise<void>((resolve) => (socket.destroyed ? resolve() : socket.once('close', () => resolve()))),
    10_000,
    what,
  );
}

test('past maxQueuedBytesPerStream the stalled connection is destroyed; the stream can still be resumed', async () => {
  const { serving, stop, serverSockets } = await startFloodServer({ maxQueuedBytesPerStream: 64 * 1024 });
  try {
    const sessionId = await openSession(serving.url);
    const { socket, primingId } = await stalledCall(serving.url, sessionId);
    // The server cuts the connection although the client never closed it.
    await closed(serverSockets.get(socket.localPort!), 'server side of the stalled connection');
    stop.resolve();
    socket.destroy();

    // The session and its stream live on: resuming replays what the store kept, then the result.
    expect(await ping(serving.url, sessionId)).toMatchObject({ result: {} });
    const resumed = await fetch(serving.url, {
      headers: { accept: 'text/event-stream', 'mcp-session-id': sessionId, 'last-event-id': primingId },
    });
    expect(resumed.status).toBe(200);
    const messages = await within(new SseReader(resumed).rest(), 10_000, 'resumed stream');
    expect(messages.at(-1)).toMatchObject({ id: 1, result: { content: [{ type: 'text' }] } });
    expect(messages.length).toBeGreaterThan(1);
  } finally {
    stop.resolve();
    await serving.close({ deadlineMs: 2_000 });
  }
});

test('past maxQueuedBytes the connection with the most queued is destroyed; a reading client is untouched', async () => {
  const { serving, stop, serverSockets } = await startFloodServer({
    maxQueuedBytesPerStream: 1024 * 1024 * 1024,
    maxQueuedBytes: 256 * 1024,
  });
  try {
    const stalledSession = await openSession(serving.url);
    const readingSession = await openSession(serving.url);
    const { socket } = await stalledCall(serving.url, stalledSession);
    await closed(serverSockets.get(socket.localPort!), 'server side of the stalled connection');
    stop.resolve();
    socket.destroy();

    // A client that reads gets its whole stream.
    const reading = await post(
      serving.url,
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'flood', arguments: { count: 200 } } },
      { sessionId: readingSession },
    );
    const messages = await within(new SseReader(reading).rest(), 10_000, 'reading client');
    expect(messages).toHaveLength(201);
    expect(messages.at(-1)).toMatchObject({ id: 2, result: { content: [{ text: 'sent 200' }] } });
  } finally {
    stop.resolve();
    await serving.close({ deadlineMs: 2_000 });
  }
});

test('web-standard entry: a Response body nobody reads is errored past the per-stream limit', async () => {
  const stop = deferred<void>();
  const cut = deferred<void>();
  const handler = createHttpHandler(floodServer(stop), {
    keepAliveMs: 0,
    maxQueuedBytesPerStream: 64 * 1024,
    logger: {
      debug: (message: string) => {
        if (message.startsWith('cut an SSE connection')) cut.resolve();
      },
      error() {},
    },
  });
  try {
    const sessionId = await initialize(handler);
    const response = await call(
      handler,
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'flood', arguments: {} } },
      { sessionId },
    );
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    await within(cut.promise, 10_000, 'cut');
    stop.resolve();
    // The backlog is gone with the errored body: the reader fails instead of draining megabytes.
    await expect(within(response.body!.getReader().read())).rejects.toThrow('SSE client stopped reading');
  } finally {
    stop.resolve();
    await handler.close();
  }
});
