/**
 * Review fixes (issue 11, item 3): every method that names a scoped item needs its scopes, not
 * only the methods that run it: completion/complete (a prompt or template ref), resources/subscribe
 * and 2026-07-28 subscriptions/listen (scoped resource URIs). Real HTTP on 127.0.0.1.
 */
import { afterEach, expect, test } from 'vitest';
import type { HttpServing } from 'keel-mcp/node';
import { useProcessGuard } from '../helpers/guard.js';
import { initializeRequest, post } from '../http-server/support/harness.js';
import { MODERN, PRM_URL, protectedServer, serveProtected, staticAuth, tok } from './support.js';

useProcessGuard();

let serving: HttpServing | undefined;
afterEach(async () => {
  await serving?.close({ deadlineMs: 2_000 });
  serving = undefined;
});

/** Open a legacy session with `token`; returns a function that POSTs one request on it. */
async function session(url: string, token: string) {
  const headers = { authorization: `Bearer ${token}` };
  const init = await post(url, initializeRequest(), { headers });
  await init.text();
  const sessionId = init.headers.get('mcp-session-id')!;
  await (
    await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, { headers, sessionId })
  ).text();
  let id = 10;
  return (method: string, params?: unknown) =>
    post(url, { jsonrpc: '2.0', id: id++, method, params }, { headers, sessionId });
}

const refused = (needed: string) =>
  `Bearer error="insufficient_scope", scope="mcp ${needed}", resource_metadata="${PRM_URL}", error_description="Missing scope: ${needed}"`;

test.each([
  [
    'completion of a scoped prompt',
    'completion/complete',
    { ref: { type: 'ref/prompt', name: 'review' }, argument: { name: 'a', value: '' } },
    'prompts',
  ],
  [
    'completion of a scoped template',
    'completion/complete',
    { ref: { type: 'ref/resource', uri: 'docs://{id}' }, argument: { name: 'id', value: '' } },
    'docs:read',
  ],
  [
    'completion naming a scoped resource',
    'completion/complete',
    { ref: { type: 'ref/resource', uri: 'file:///secret' }, argument: { name: 'x', value: '' } },
    'files:read',
  ],
  ['subscribing to a scoped resource', 'resources/subscribe', { uri: 'file:///secret' }, 'files:read'],
  ['subscribing to a URI of a scoped template', 'resources/subscribe', { uri: 'docs://7' }, 'docs:read'],
])('%s: 403 insufficient_scope; with the scope it is served', async (_label, method, params, needed) => {
  serving = await serveProtected(staticAuth());
  const send = await session(serving.url, tok('alice', 'mcp'));
  const response = await send(method, params);
  expect(response.status).toBe(403);
  expect(response.headers.get('www-authenticate')).toBe(refused(needed));
  await response.text();
  const allowed = await session(serving.url, tok('alice', 'mcp', needed));
  const answer = await allowed(method, params);
  expect(answer.status).toBe(200);
  await answer.text();
});

test('an unscoped prompt ref and an unknown ref are not a 403', async () => {
  const server = protectedServer();
  server.prompt('open', { description: 'Open' }, () => 'hi');
  serving = await serveProtected(staticAuth(), {}, server);
  const send = await session(serving.url, tok('alice', 'mcp'));
  for (const name of ['open', 'nope']) {
    const response = await send('completion/complete', {
      ref: { type: 'ref/prompt', name },
      argument: { name: 'a', value: '' },
    });
    expect(response.status).toBe(200);
    await response.text();
  }
});

/** A 2026-07-28 subscriptions/listen body and headers for `uris`. */
function listen(uris: string[]) {
  const body = {
    jsonrpc: '2.0',
    id: 1,
    method: 'subscriptions/listen',
    params: {
      notifications: { resourceSubscriptions: uris },
      _meta: {
        'io.modelcontextprotocol/protocolVersion': MODERN,
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  };
  return { body, headers: { 'mcp-protocol-version': MODERN, 'mcp-method': 'subscriptions/listen' } };
}

test('2026-07-28 subscriptions/listen: every scoped URI listed needs its scopes (the union)', async () => {
  serving = await serveProtected(staticAuth());
  const { body, headers } = listen(['file:///secret', 'docs://7', 'file:///secret']);
  const response = await post(serving.url, body, {
    headers: { ...headers, authorization: `Bearer ${tok('alice', 'mcp', 'files:read')}` },
  });
  expect(response.status).toBe(403);
  expect(response.headers.get('www-authenticate')).toBe(
    `Bearer error="insufficient_scope", scope="mcp files:read docs:read", resource_metadata="${PRM_URL}", error_description="Missing scope: docs:read"`,
  );
  await response.text();
});

test('requiredScopes: listen with no scoped URI needs nothing; unsubscribe needs nothing', () => {
  const server = protectedServer();
  expect(
    server.requiredScopes('subscriptions/listen', { notifications: { toolsListChanged: true } }),
  ).toBeUndefined();
  expect(
    server.requiredScopes('subscriptions/listen', { notifications: { resourceSubscriptions: ['x://open'] } }),
  ).toBeUndefined();
  expect(
    server.requiredScopes('subscriptions/listen', {
      notifications: { resourceSubscriptions: ['docs://1', 'file:///secret'] },
    }),
  ).toEqual(['docs:read', 'files:read']);
  expect(server.requiredScopes('resources/unsubscribe', { uri: 'file:///secret' })).toBeUndefined();
  expect(server.requiredScopes('completion/complete', { ref: 'bad' })).toBeUndefined();
});
