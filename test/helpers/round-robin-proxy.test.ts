/** The round-robin proxy of the scale-out tests, against plain upstream HTTP servers. */
import { createServer, type Server, type ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { useProcessGuard, within } from './guard.js';
import { startRoundRobinProxy, type RoundRobinProxy } from './round-robin-proxy.js';

useProcessGuard();

interface Upstream {
  server: Server;
  port: number;
  /** Per request: the body it received and a way to watch its response end. */
  seen: { body: string; headers: Record<string, unknown>; closed: Promise<'finished' | 'cut'> }[];
  /** The open SSE response (the `/sse` route), to write events when the test says. */
  sse?: ServerResponse;
  sseOpened?: Promise<void>;
}

async function upstream(name: string): Promise<Upstream> {
  const up: Upstream = { server: createServer(), port: 0, seen: [] };
  let opened: () => void = () => {};
  up.sseOpened = new Promise((resolve) => (opened = resolve));
  up.server.on('request', (req, res) => {
    let body = '';
    const closed = new Promise<'finished' | 'cut'>((resolve) =>
      res.once('close', () => resolve(res.writableFinished ? 'finished' : 'cut')),
    );
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      up.seen.push({ body, headers: req.headers, closed });
      if (req.url === '/sse') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.flushHeaders();
        up.sse = res;
        opened();
        return;
      }
      res.writeHead(201, { 'content-type': 'application/json', 'x-upstream': name });
      res.end(JSON.stringify({ upstream: name, echo: body }));
    });
  });
  await new Promise<void>((resolve) => up.server.listen(0, '127.0.0.1', resolve));
  up.port = (up.server.address() as { port: number }).port;
  return up;
}

async function stopUpstream(up: Upstream): Promise<void> {
  up.server.closeAllConnections();
  await new Promise<void>((resolve) => up.server.close(() => resolve()));
}

let ups: Upstream[] = [];
let proxy: RoundRobinProxy | undefined;

afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
  for (const up of ups) await stopUpstream(up);
  ups = [];
});

async function setup(count: number): Promise<RoundRobinProxy> {
  ups = await Promise.all(Array.from({ length: count }, (_, i) => upstream(`u${i}`)));
  proxy = await startRoundRobinProxy(ups.map((up) => up.port));
  return proxy;
}

const rpc = (method: string, id = 1): string => JSON.stringify({ jsonrpc: '2.0', id, method });

describe('round-robin proxy', () => {
  it('sends consecutive requests to the next upstream in turn and logs who served what', async () => {
    const p = await setup(3);
    const served: string[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await fetch(p.url('/mcp'), {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'mcp-session-id': 's-1' },
        body: rpc(`m${i}`),
      });
      expect(res.status).toBe(201);
      expect(res.headers.get('x-upstream')).toBe(`u${i % 3}`);
      served.push(((await res.json()) as { upstream: string; echo: string }).upstream);
    }
    expect(served).toEqual(['u0', 'u1', 'u2', 'u0']);
    expect(
      p.log.map((e) => [e.seq, e.upstream, e.port, e.method, e.path, e.sessionId, e.rpcMethods, e.status]),
    ).toEqual([0, 1, 2, 3].map((i) => [i, i % 3, ups[i % 3]!.port, 'POST', '/mcp', 's-1', [`m${i}`], 201]));
    expect(p.log.every((e) => e.outcome === 'done')).toBe(true);
    // The body and the end-to-end headers arrive unchanged; Host names the upstream.
    expect(ups[1]!.seen[0]!.body).toBe(rpc('m1'));
    expect(ups[1]!.seen[0]!.headers['mcp-session-id']).toBe('s-1');
    expect(ups[1]!.seen[0]!.headers.host).toBe(`127.0.0.1:${ups[1]!.port}`);
  });

  it('logs every method of a JSON-RPC batch, and none for a body that is not JSON', async () => {
    const p = await setup(1);
    const batch = `[${rpc('a', 1)},${rpc('b', 2)},{"jsonrpc":"2.0","id":9,"result":{}}]`;
    await (await fetch(p.url('/x'), { method: 'POST', body: batch })).text();
    await (await fetch(p.url('/x'), { method: 'POST', body: 'not json' })).text();
    await (await fetch(p.url('/x'))).text();
    expect(p.log.map((e) => [e.method, e.rpcMethods])).toEqual([
      ['POST', ['a', 'b']],
      ['POST', []],
      ['GET', []],
    ]);
  });

  it('`next` lines the next request up on a chosen upstream; remove() takes one out of the rotation', async () => {
    const p = await setup(3);
    p.next = 2;
    await (await fetch(p.url('/'))).text();
    await (await fetch(p.url('/'), { headers: { 'last-event-id': 'ev-7' } })).text();
    p.remove(1);
    for (let i = 0; i < 3; i++) await (await fetch(p.url('/'))).text();
    expect(p.log.map((e) => e.upstream)).toEqual([2, 0, 2, 0, 2]);
    expect(p.log.map((e) => e.lastEventId)).toEqual([undefined, 'ev-7', undefined, undefined, undefined]);
    p.remove(2);
    expect(() => p.remove(0)).toThrow(/last upstream/);
  });

  it('waitFor() resolves with a logged or a coming request, and rejects when none comes in time', async () => {
    const p = await setup(2);
    await (await fetch(p.url('/first'))).text();
    expect((await p.waitFor((e) => e.path === '/first')).seq).toBe(0);
    const coming = p.waitFor((e) => e.path === '/second');
    await (await fetch(p.url('/second'))).text();
    expect(await coming).toMatchObject({ seq: 1, upstream: 1 });
    await expect(p.waitFor((e) => e.path === '/never', 50)).rejects.toThrow(/within 50 ms/);
  });

  it('streams an SSE response event by event, and a client that leaves cuts the upstream response', async () => {
    const p = await setup(2);
    p.next = 1;
    const controller = new AbortController();
    const res = await fetch(p.url('/sse'), { signal: controller.signal });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    await within(ups[1]!.sseOpened!, 5_000, 'upstream SSE open');
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    // The first event arrives while the upstream response is still open (no buffering to the end).
    ups[1]!.sse!.write('data: one\n\n');
    expect(decoder.decode((await within(reader.read(), 5_000, 'first event')).value)).toBe('data: one\n\n');
    ups[1]!.sse!.write('data: two\n\n');
    expect(decoder.decode((await within(reader.read(), 5_000, 'second event')).value)).toBe('data: two\n\n');
    controller.abort();
    await reader.cancel().catch(() => {});
    expect(await within(ups[1]!.seen[0]!.closed, 5_000, 'upstream sees the client leave')).toBe('cut');
    expect(p.log[0]!.outcome).toBe('client-left');
  });

  it('answers 502 when the upstream is gone before the head, and cuts the client when it dies mid-body', async () => {
    const p = await setup(2);
    await stopUpstream(ups[0]!);
    const refused = await fetch(p.url('/'));
    expect(refused.status).toBe(502);
    await refused.text();
    expect(p.log[0]).toMatchObject({ upstream: 0, status: 502, outcome: 'upstream-failed' });

    const res = await fetch(p.url('/sse'));
    await within(ups[1]!.sseOpened!, 5_000, 'upstream SSE open');
    const reader = res.body!.getReader();
    ups[1]!.sse!.write('data: one\n\n');
    await within(reader.read(), 5_000, 'first event');
    ups[1]!.sse!.socket!.destroy(); // the upstream process "dies"
    await expect(within(reader.read(), 5_000, 'cut stream')).rejects.toThrow();
    expect(p.log[1]).toMatchObject({ upstream: 1, status: 200, outcome: 'upstream-failed' });
  });

  it('close() cuts open exchanges on both sides and leaves nothing behind', async () => {
    const p = await setup(1);
    const res = await fetch(p.url('/sse'));
    await within(ups[0]!.sseOpened!, 5_000, 'upstream SSE open');
    const reader = res.body!.getReader();
    await within(p.close(), 5_000, 'proxy close');
    proxy = undefined;
    await expect(within(reader.read(), 5_000, 'cut stream')).rejects.toThrow();
    expect(await within(ups[0]!.seen[0]!.closed, 5_000, 'upstream cut')).toBe('cut');
    await expect(fetch(p.url('/'))).rejects.toThrow();
  });

  it('closeIdle() ends kept-alive and unused client connections, not one with a request in progress', async () => {
    const p = await setup(1);
    const raw = (): Promise<{ socket: Socket; head: Promise<string> }> =>
      new Promise((resolve) => {
        const socket = connect(p.port, '127.0.0.1', () => {
          const head = new Promise<string>((got) =>
            socket.once('data', (chunk: Buffer) => got(chunk.toString())),
          );
          resolve({ socket, head });
        });
      });
    const kept = await raw();
    kept.socket.write('GET /x HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(await within(kept.head, 5_000, 'answer')).toMatch(/^HTTP\/1\.1 201/);
    const unused = await raw();
    const streaming = await raw();
    streaming.socket.write('GET /sse HTTP/1.1\r\nHost: x\r\n\r\n');
    await within(streaming.head, 5_000, 'SSE head');
    const closed = (socket: Socket): Promise<void> =>
      new Promise((resolve) => socket.once('close', () => resolve()));
    const keptClosed = closed(kept.socket);
    const unusedClosed = closed(unused.socket);
    let streamingClosed = false;
    streaming.socket.once('close', () => (streamingClosed = true));
    p.closeIdle();
    await within(Promise.all([keptClosed, unusedClosed]), 5_000, 'idle connections closed');
    // The SSE connection still carries its stream: an event written now arrives.
    const event = new Promise<string>((got) =>
      streaming.socket.once('data', (chunk: Buffer) => got(chunk.toString())),
    );
    ups[0]!.sse!.write('data: still\n\n');
    expect(await within(event, 5_000, 'event after closeIdle')).toContain('data: still');
    expect(streamingClosed).toBe(false);
    streaming.socket.destroy();
  });

  it('refuses an empty upstream list', async () => {
    await expect(startRoundRobinProxy([])).rejects.toThrow(/at least one upstream/);
  });
});
