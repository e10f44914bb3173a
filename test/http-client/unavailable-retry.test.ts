/**
 * Issue 28: a request answered `503` with a short `Retry-After` was not processed (Keel says so
 * while a process drains with no peer, or a shared store blinks), so the client sends it again
 * after that delay, a bounded number of times; without `Retry-After`, with a long one, or with
 * `unavailableRetries: 0`, the 503 fails the call at once.
 */
import { afterEach, expect, test } from 'vitest';
import { ConnectionClosedError } from 'keel-mcp/core';
import { useProcessGuard } from '../helpers/guard.js';
import { connectClient, outcome } from './support/connect.js';
import { json, startMockServer, type MockServer } from './support/mock-server.js';

useProcessGuard();

let server: MockServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A server that answers the first `refusals` `ping`s with 503 and `headers`, then pong. */
async function refusing(refusals: number, headers: Record<string, string>): Promise<MockServer> {
  let refused = 0;
  return startMockServer((seen, _req, res) => {
    if (seen.body?.method !== 'ping') return false;
    if (refused++ < refusals) {
      res.writeHead(503, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'draining' } }));
      return true;
    }
    json(res, { jsonrpc: '2.0', id: seen.body.id, result: {} });
    return true;
  });
}

test('issue 28: 503 + Retry-After is sent again after the delay; the call succeeds', async () => {
  server = await refusing(2, { 'retry-after': '0' });
  const { client } = await connectClient(server.url, { openGetStream: false });
  expect(await outcome(client.request('ping'))).toEqual({});
  expect(server.posts('ping')).toHaveLength(3);
  await client.close();
});

test('issue 28: the retries are bounded (unavailableRetries, default 3), then the 503 fails the call', async () => {
  server = await refusing(10, { 'retry-after': '0' });
  const { client } = await connectClient(server.url, { openGetStream: false });
  const error = await outcome(client.request('ping'));
  expect(error).toBeInstanceOf(ConnectionClosedError);
  expect(String((error as Error).message)).toContain('503');
  expect(server.posts('ping')).toHaveLength(4);
  await client.close();
});

test('issue 28: no Retry-After, a long one, or unavailableRetries: 0 — the 503 fails the call at once', async () => {
  for (const [headers, options] of [
    [{}, {}],
    [{ 'retry-after': '120' }, {}],
    [{ 'retry-after': '0' }, { unavailableRetries: 0 }],
  ] as const) {
    server = await refusing(1, headers);
    const { client } = await connectClient(server.url, { openGetStream: false, ...options });
    expect(await outcome(client.request('ping'))).toBeInstanceOf(ConnectionClosedError);
    expect(server.posts('ping')).toHaveLength(1);
    await client.close();
    await server.close();
    server = undefined;
  }
});
