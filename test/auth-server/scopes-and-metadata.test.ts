/**
 * Issue 11, resource server: RFC 9728 metadata at both well-known URLs, the 401 challenge's
 * scope, 403 insufficient_scope per tool, resource and prompt (step-up scope list), and what stays
 * open (listing, unknown names). Real HTTP (serveHttp, 127.0.0.1); a static verifier, since these
 * tests are about what happens after verification.
 */
import { afterEach, expect, test } from 'vitest';
import { protectedResourceMetadataHandler, McpServer, type ResourceServerOptions } from 'keel-mcp/server';
import { useProcessGuard } from '../helpers/guard.js';
import { initializeRequest, post } from '../http-server/support/harness.js';
import { modernCall, PRM_URL, serveProtected, staticAuth, tok } from './support.js';
import { serveHttp, type HttpServing } from 'keel-mcp/node';

useProcessGuard();

let serving: HttpServing | undefined;
afterEach(async () => {
  await serving?.close({ deadlineMs: 2_000 });
  serving = undefined;
});

const METADATA = {
  resource: 'https://mcp.test/mcp',
  authorization_servers: ['https://as.test'],
  scopes_supported: ['mcp'],
  bearer_methods_supported: ['header'],
  resource_name: 'Test MCP',
  resource_documentation: 'https://mcp.test/docs',
};

async function start(overrides: Partial<ResourceServerOptions> = {}): Promise<string> {
  serving = await serveProtected(
    staticAuth({ resourceName: 'Test MCP', resourceDocumentation: 'https://mcp.test/docs', ...overrides }),
  );
  return serving.url;
}

/** The served origin's URL for a path. */
function at(url: string, path: string): string {
  return new URL(path, url).href;
}

/** Open a session with `token`; returns a function that POSTs one request on it. */
async function session(url: string, token: string) {
  const headers = { authorization: `Bearer ${token}` };
  const init = await post(url, initializeRequest(), { headers });
  expect(init.status).toBe(200);
  const sessionId = init.headers.get('mcp-session-id')!;
  await init.text();
  expect(
    (await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, { headers, sessionId })).status,
  ).toBe(202);
  let id = 1;
  return (method: string, params: Record<string, unknown> = {}) =>
    post(url, { jsonrpc: '2.0', id: id++, method, params }, { headers, sessionId });
}

test.each([
  ['path-based', '/.well-known/oauth-protected-resource/mcp'],
  ['root', '/.well-known/oauth-protected-resource'],
])('metadata at the %s URL: 200, the exact document, CORS open', async (_label, path) => {
  const url = await start();
  const response = await fetch(at(url, path));
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('application/json');
  expect(response.headers.get('access-control-allow-origin')).toBe('*');
  expect(await response.json()).toEqual(METADATA);
});

test('metadata: HEAD has no body, POST is 405, other well-known paths are 404, no token needed', async () => {
  const url = await start();
  const head = await fetch(at(url, '/.well-known/oauth-protected-resource/mcp'), { method: 'HEAD' });
  expect(head.status).toBe(200);
  expect(await head.text()).toBe('');
  const posted = await fetch(at(url, '/.well-known/oauth-protected-resource/mcp'), {
    method: 'POST',
    body: '{}',
  });
  expect(posted.status).toBe(405);
  expect(posted.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
  await posted.text();
  const other = await fetch(at(url, '/.well-known/oauth-protected-resource/other'));
  expect(other.status).toBe(404);
  await other.text();
});

test('without auth, serveHttp serves no metadata (404)', async () => {
  serving = await serveHttp(new McpServer({ name: 'open', version: '1' }), { port: 0, keepAliveMs: 0 });
  const response = await fetch(at(serving.url, '/.well-known/oauth-protected-resource/mcp'));
  expect(response.status).toBe(404);
  await response.text();
});

test('protectedResourceMetadataHandler: a Response for its two paths, undefined for any other', async () => {
  const handler = protectedResourceMetadataHandler(staticAuth());
  const own = handler(new Request('https://mcp.test/.well-known/oauth-protected-resource/mcp'));
  expect(own?.status).toBe(200);
  expect(await own?.json()).toMatchObject({
    resource: 'https://mcp.test/mcp',
    bearer_methods_supported: ['header'],
  });
  expect(handler(new Request('https://mcp.test/.well-known/oauth-protected-resource'))?.status).toBe(200);
  expect(handler(new Request('https://mcp.test/mcp'))).toBeUndefined();
  expect(
    handler(new Request('https://mcp.test/.well-known/oauth-protected-resource/mcp', { method: 'PUT' }))
      ?.status,
  ).toBe(405);
});

test('the 401 challenge names requiredScopes when set (else scopesSupported)', async () => {
  const url = await start({ requiredScopes: ['mcp', 'basic'] });
  const response = await post(url, initializeRequest());
  expect(response.status).toBe(401);
  expect(response.headers.get('www-authenticate')).toBe(
    `Bearer resource_metadata="${PRM_URL}", scope="mcp basic"`,
  );
  await response.text();
});

test('requiredScopes: a token without them gets 403 insufficient_scope before the body is read', async () => {
  const url = await start({ requiredScopes: ['mcp'] });
  const response = await post(url, initializeRequest(), {
    headers: { authorization: `Bearer ${tok('alice', 'other')}` },
  });
  expect(response.status).toBe(403);
  expect(response.headers.get('www-authenticate')).toBe(
    `Bearer error="insufficient_scope", scope="other mcp", resource_metadata="${PRM_URL}", error_description="Missing scope: mcp"`,
  );
  expect(serving!.handler.sessionCount).toBe(0);
  await response.text();
});

test('a tool registered with scopes: 403 with the scopes to ask for (held + needed), the tool does not run', async () => {
  const url = await start();
  const send = await session(url, tok('alice', 'mcp'));
  const response = await send('tools/call', { name: 'write', arguments: {} });
  expect(response.status).toBe(403);
  expect(response.headers.get('www-authenticate')).toBe(
    `Bearer error="insufficient_scope", scope="mcp files:write", resource_metadata="${PRM_URL}", error_description="Missing scope: files:write"`,
  );
  expect(await response.json()).toEqual({
    jsonrpc: '2.0',
    id: 1,
    error: { code: -32600, message: 'Forbidden: insufficient scope (missing files:write)' },
  });
});

test('a tool needing two scopes, one held: the challenge lists all of them at once', async () => {
  const url = await start();
  const send = await session(url, tok('alice', 'mcp', 'files:write'));
  const response = await send('tools/call', { name: 'admin', arguments: {} });
  expect(response.status).toBe(403);
  expect(response.headers.get('www-authenticate')).toBe(
    `Bearer error="insufficient_scope", scope="mcp files:write admin", resource_metadata="${PRM_URL}", error_description="Missing scope: admin"`,
  );
  await response.text();
});

test('with the scope, the tool runs', async () => {
  const url = await start();
  const send = await session(url, tok('alice', 'mcp', 'files:write'));
  const response = await send('tools/call', { name: 'write', arguments: {} });
  expect(response.status).toBe(200);
  expect(await response.json()).toMatchObject({ result: { content: [{ type: 'text', text: 'written' }] } });
});

test.each([
  ['a resource', 'resources/read', { uri: 'file:///secret' }, 'files:read'],
  ['a resource template', 'resources/read', { uri: 'docs://7' }, 'docs:read'],
  ['a prompt', 'prompts/get', { name: 'review' }, 'prompts'],
])('%s registered with scopes: 403 insufficient_scope', async (_label, method, params, needed) => {
  const url = await start();
  const send = await session(url, tok('alice', 'mcp'));
  const response = await send(method, params);
  expect(response.status).toBe(403);
  expect(response.headers.get('www-authenticate')).toBe(
    `Bearer error="insufficient_scope", scope="mcp ${needed}", resource_metadata="${PRM_URL}", error_description="Missing scope: ${needed}"`,
  );
  await response.text();
  const allowed = await session(url, tok('alice', 'mcp', needed));
  expect((await allowed(method, params)).status).toBe(200);
});

test('an unknown tool is not a 403: the normal JSON-RPC error follows', async () => {
  const url = await start();
  const send = await session(url, tok('alice', 'mcp'));
  const response = await send('tools/call', { name: 'nope', arguments: {} });
  expect(response.status).toBe(200);
  expect(await response.json()).toMatchObject({ error: { code: -32602, message: 'Unknown tool: nope' } });
});

test('listing stays open: tools/list shows every tool to a token without their scopes', async () => {
  const url = await start();
  const send = await session(url, tok('alice', 'mcp'));
  const response = await send('tools/list');
  expect(response.status).toBe(200);
  const names = ((await response.json()) as { result: { tools: { name: string; scopes?: unknown }[] } })
    .result.tools;
  expect(names.map((tool) => tool.name)).toEqual(['whoami', 'write', 'admin']);
  // Scopes are server policy, not part of the tool definition on the wire.
  expect(names.every((tool) => !('scopes' in tool))).toBe(true);
});

test('a 2026-07-28 tools/call: the same 403 insufficient_scope', async () => {
  const url = await start();
  const { body, headers } = modernCall(1, 'write');
  const response = await post(url, body, {
    headers: { ...headers, authorization: `Bearer ${tok('alice', 'mcp')}` },
  });
  expect(response.status).toBe(403);
  expect(response.headers.get('www-authenticate')).toContain(
    'error="insufficient_scope", scope="mcp files:write"',
  );
  await response.text();
  const allowed = await post(url, body, {
    headers: { ...headers, authorization: `Bearer ${tok('alice', 'files:write')}` },
  });
  expect(allowed.status).toBe(200);
  await allowed.text();
});

test('scopes follow handle.update(): added, then removed', async () => {
  const server = new McpServer({ name: 's', version: '1' });
  const tool = server.tool('t', { description: 'd' }, () => 'x');
  expect(server.requiredScopes('tools/call', { name: 't' })).toBeUndefined();
  tool.update({ scopes: ['extra'] });
  expect(server.requiredScopes('tools/call', { name: 't' })).toEqual(['extra']);
  tool.update({ scopes: undefined });
  expect(server.requiredScopes('tools/call', { name: 't' })).toBeUndefined();
  tool.disable();
  tool.update({ scopes: ['extra'] });
  // A disabled tool is unknown: no 403, the usual error.
  expect(server.requiredScopes('tools/call', { name: 't' })).toBeUndefined();
  expect(server.requiredScopes('tools/list', {})).toBeUndefined();
});

test('bad scope strings fail at registration and in the options', async () => {
  const server = new McpServer({ name: 's', version: '1' });
  expect(() => server.tool('t', { description: 'd', scopes: ['two words'] }, () => 'x')).toThrow(TypeError);
  expect(() => server.prompt('p', { description: 'd', scopes: ['q"uote'] }, () => 'x')).toThrow(TypeError);
  expect(() => server.resource('r', 'file:///r', { scopes: [''] }, () => 'x')).toThrow(TypeError);
  await expect(serveProtected(staticAuth({ scopesSupported: ['a b'] }))).rejects.toThrow(TypeError);
  await expect(serveProtected(staticAuth({ resource: 'https://mcp.test/mcp?x=1' }))).rejects.toThrow(
    TypeError,
  );
  await expect(serveProtected(staticAuth({ authorizationServers: [] }))).rejects.toThrow(TypeError);
});
