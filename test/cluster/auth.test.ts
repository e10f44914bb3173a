/**
 * Issue 12 with `auth`: the owner runs its own auth gate on a relayed request (the forwarder only
 * picks where it goes), so a missing token gets the owner's 401 challenge through any process,
 * and a session stays its creator's: another principal gets 404 wherever it asks.
 */
import { afterEach, expect, test } from 'vitest';
import type { JsonObject } from 'keel-mcp/core';
import { InvalidTokenError } from 'keel-mcp/server';
import { useProcessGuard } from '../helpers/guard.js';
import {
  callTool,
  initializeRequest,
  request,
  startCluster,
  type Cluster,
  type Node,
} from './support/cluster.js';

useProcessGuard();

let cluster: Cluster | undefined;
afterEach(async () => {
  await cluster?.close();
  cluster = undefined;
});

const TOKENS: Record<string, string> = { 'alice-token': 'alice', 'bob-token': 'bob' };

function startAuthCluster(): [Node, Node] {
  cluster = startCluster(2, {
    auth: {
      resource: 'http://127.0.0.1/mcp',
      authorizationServers: ['https://auth.example.com'],
      verifier: {
        verify: (token) =>
          TOKENS[token]
            ? Promise.resolve({ subject: TOKENS[token], clientId: 'c', scopes: [] })
            : Promise.reject(new InvalidTokenError('unknown token')),
      },
    },
  });
  return cluster.nodes as [Node, Node];
}

const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });

test('a relayed request is authenticated by the owner: 401 without a token, the verified caller in ctx', async () => {
  const [a, b] = startAuthCluster();
  const init = await request(a, 'POST', { body: initializeRequest(), headers: bearer('alice-token') });
  expect(init.status).toBe(200);
  const sessionId = init.headers.get('mcp-session-id')!;

  const anonymous = await request(b, 'POST', { sessionId, body: callTool(1, 'whoami') });
  expect(anonymous.status).toBe(401);
  expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer /);
  // The challenge came from the owner (B relayed the exchange, it did not answer itself).
  expect(b.relay.sent.filter((entry) => entry.message.t === 'open')).toHaveLength(1);

  const alice = await request(b, 'POST', {
    sessionId,
    body: callTool(2, 'whoami'),
    headers: bearer('alice-token'),
  });
  expect(alice.status).toBe(200);
  const text = ((await alice.json()) as { result: { content: { text: string }[] } }).result.content[0]!.text;
  expect(JSON.parse(text)).toMatchObject({ node: 'node-1', auth: { subject: 'alice' } });

  // The session is alice's: bob gets 404 through any process.
  for (const node of [a, b]) {
    const bob = await request(node, 'POST', {
      sessionId,
      body: callTool(3, 'whoami'),
      headers: bearer('bob-token'),
    });
    expect(bob.status).toBe(404);
    expect(((await bob.json()) as JsonObject).error).toMatchObject({ message: 'Session not found' });
  }
});
