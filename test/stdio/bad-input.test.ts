/**
 * Bad input over a real stdio child: every bad line gets the right JSON-RPC error, and the ping
 * that follows it is still answered. Nothing crashes, nothing hangs, memory stays bounded.
 */
import { beforeAll, vi, describe, expect, test } from 'vitest';
import { useProcessGuard, within } from '../helpers/guard.js';
import {
  assertBuilt,
  fixture,
  INITIALIZE,
  RawServer,
  useChildCleanup,
  type Json,
  CHILD_TEST_TIMEOUT_MS,
  WAIT_MS,
  endAndExpectCleanExit,
} from './helpers.js';

vi.setConfig({ testTimeout: CHILD_TEST_TIMEOUT_MS });
useProcessGuard();
useChildCleanup();
beforeAll(assertBuilt);

const LIMIT = 64 * 1024;

let pings = 0;
/** Send a ping and return its response: proof the server is still serving. */
async function ping(server: RawServer): Promise<Json> {
  const id = `ping-${++pings}`;
  server.send({ jsonrpc: '2.0', id, method: 'ping' });
  return server.response(id);
}

/** The next error response with id null written after `count` messages. */
function nextNullIdError(server: RawServer, after: number): Promise<Json> {
  return server.waitFor(
    (m) => server.messages.indexOf(m) >= after && m.id === null && 'error' in m,
    'an error response with id null',
  );
}

async function startServer(): Promise<RawServer> {
  const server = new RawServer(fixture('tool-server.js'), {
    env: { KEEL_MAX_MESSAGE_BYTES: String(LIMIT) },
    args: [],
  });
  server.send(INITIALIZE);
  await server.response('init');
  return server;
}

const stop = endAndExpectCleanExit;

describe('bad input over stdio', () => {
  test('invalid JSON → -32700 with id null; next ping answered', async () => {
    const server = await startServer();
    const before = server.messages.length;
    server.send('{"jsonrpc": "2.0", "id": 1, "method": ');
    expect((await nextNullIdError(server, before)).error.code).toBe(-32700);
    expect(await ping(server)).toMatchObject({ result: {} });
    await stop(server);
  });

  test('a JSON array (batch) → -32600; next ping answered', async () => {
    const server = await startServer();
    const before = server.messages.length;
    server.send(JSON.stringify([{ jsonrpc: '2.0', id: 7, method: 'ping' }]));
    expect((await nextNullIdError(server, before)).error.code).toBe(-32600);
    expect(await ping(server)).toMatchObject({ result: {} });
    expect(server.responsesFor(7)).toEqual([]);
    await stop(server);
  });

  test('missing jsonrpc → -32600 for that id; next ping answered', async () => {
    const server = await startServer();
    server.send({ id: 'no-version', method: 'ping' });
    expect((await server.response('no-version')).error.code).toBe(-32600);
    expect(await ping(server)).toMatchObject({ result: {} });
    await stop(server);
  });

  test('id null → -32600 with id null; next ping answered', async () => {
    const server = await startServer();
    const before = server.messages.length;
    server.send({ jsonrpc: '2.0', id: null, method: 'ping' });
    expect((await nextNullIdError(server, before)).error.code).toBe(-32600);
    expect(await ping(server)).toMatchObject({ result: {} });
    await stop(server);
  });

  test('unknown method → -32601; next ping answered', async () => {
    const server = await startServer();
    server.send({ jsonrpc: '2.0', id: 'unknown', method: 'no/such/method' });
    expect((await server.response('unknown')).error.code).toBe(-32601);
    expect(await ping(server)).toMatchObject({ result: {} });
    await stop(server);
  });

  test('wrong param types (initialize with protocolVersion: 5) → -32602; next ping answered', async () => {
    // The bad initialize comes first: after a successful one, any initialize is refused (-32600).
    const server = new RawServer(fixture('tool-server.js'), {
      env: { KEEL_MAX_MESSAGE_BYTES: String(LIMIT) },
      args: [],
    });
    server.send({
      jsonrpc: '2.0',
      id: 'bad-init',
      method: 'initialize',
      params: { protocolVersion: 5, capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    });
    expect((await server.response('bad-init')).error.code).toBe(-32602);
    // It negotiated nothing: the handshake can still be made.
    server.send(INITIALIZE);
    expect(await server.response('init')).toMatchObject({ result: { protocolVersion: '2025-11-25' } });
    server.send({ jsonrpc: '2.0', id: 'bad-params', method: 'tools/call', params: 'not an object' });
    expect((await server.response('bad-params')).error.code).toBe(-32602);
    expect(await ping(server)).toMatchObject({ result: {} });
    await stop(server);
  });

  test('invalid UTF-8 bytes → -32700 with id null; next ping answered', async () => {
    const server = await startServer();
    const before = server.messages.length;
    // A request whose method name holds bytes that are not UTF-8 (a lone continuation byte, 0xFF).
    const bytes = Buffer.concat([
      Buffer.from('{"jsonrpc":"2.0","id":"utf8","method":"pi'),
      Buffer.from([0x80, 0xff]),
      Buffer.from('ng"}'),
    ]);
    server.send(bytes);
    const reply = await nextNullIdError(server, before);
    expect(reply.error.code).toBe(-32700);
    expect(reply.error.message).toMatch(/UTF-8/);
    expect(await ping(server)).toMatchObject({ result: {} });
    expect(server.responsesFor('utf8')).toEqual([]);
    await stop(server);
  });

  test('a line over the size limit → -32600 with id null, memory bounded; next ping answered', async () => {
    // --expose-gc: the memory probe collects garbage first, so it measures what is kept.
    const probe = new RawServer(fixture('tool-server.js'), {
      nodeArgs: ['--expose-gc'],
      env: { KEEL_MAX_MESSAGE_BYTES: String(LIMIT) },
    });
    const memory = async (id: string): Promise<number> => {
      probe.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'memory', arguments: {} } });
      const usage = (await probe.response(id)).result.structuredContent;
      return usage.heapUsed + usage.arrayBuffers;
    };
    const baseline = await memory('mem-before');
    const before = probe.messages.length;
    // 32 MiB of one JSON string, streamed in 1 MiB pieces, then the newline.
    const piece = Buffer.alloc(1024 * 1024, 0x61);
    const stdin = probe.child.stdin!;
    stdin.write(
      '{"jsonrpc":"2.0","id":"huge","method":"tools/call","params":{"name":"echo","arguments":{"text":"',
    );
    for (let i = 0; i < 32; i++) {
      if (!stdin.write(piece))
        await within(new Promise((resolve) => stdin.once('drain', resolve)), WAIT_MS, 'drain');
    }
    stdin.write('"}}}\n');
    const reply = await nextNullIdError(probe, before);
    expect(reply.error.code).toBe(-32600);
    expect(reply.error.message).toContain(String(LIMIT));
    expect(await ping(probe)).toMatchObject({ result: {} });
    const after = await memory('mem-after');
    console.error(
      `stdio oversize line: 32 MiB streamed, live memory grew by ${((after - baseline) / 1024).toFixed(0)} KiB`,
    );
    // Buffering the line would have cost at least 32 MiB; streaming costs about the limit.
    expect(after - baseline).toBeLessThan(16 * 1024 * 1024);
    expect(probe.responsesFor('huge')).toEqual([]);
    await stop(probe);
  });
});
