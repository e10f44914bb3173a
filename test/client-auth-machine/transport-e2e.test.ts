/**
 * The client credentials provider in the HTTP client transport, against a real Keel server on
 * 127.0.0.1 behind a bearer gate, with the default discovery (protected resource metadata from the
 * challenge, then authorization server metadata from a loopback token server). What is checked:
 * the first refusal leads to discovery and one token, the token is reused, a revoked token is
 * replaced exactly once, and a step-up asks for the union of scopes.
 */
import { afterEach, expect, test } from 'vitest';
import { serveHttp, type HttpServing } from 'keel-mcp/node';
import { clientCredentialsAuth } from 'keel-mcp/client';
import { McpServer } from 'keel-mcp/server';
import { useProcessGuard } from '../helpers/guard.js';
import { connectClient } from '../http-client/support/connect.js';
import { startMockServer, type MockServer } from './mock-as.js';

useProcessGuard();

let serving: HttpServing | undefined;
let as: MockServer | undefined;
afterEach(async () => {
  await serving?.close({ deadlineMs: 2_000 });
  await as?.close();
  serving = undefined;
  as = undefined;
});

interface Gate {
  /** Tokens the server accepts, with the scopes they carry. */
  readonly valid: Map<string, string[]>;
  /** Scopes every MCP request needs. */
  required: string[];
  readonly seen: (string | null)[];
}

/** Everything the test stands up: the Keel server, the authorization server, the gate. */
async function setup() {
  const server = new McpServer({ name: 'machine-e2e', version: '1' });
  server.tool('echo', { description: 'echo' }, () => ({ content: [{ type: 'text', text: 'ok' }] }));
  serving = await serveHttp(server, { port: 0, host: '127.0.0.1' });
  const mcpUrl = serving.url;
  const prmUrl = `${new URL(mcpUrl).origin}/.well-known/oauth-protected-resource${new URL(mcpUrl).pathname}`;
  const gate: Gate = { valid: new Map(), required: [], seen: [] };
  let issued = 0;
  as = await startMockServer((request) => {
    if (request.path === '/.well-known/oauth-authorization-server') {
      return {
        body: {
          issuer: as!.url,
          token_endpoint: `${as!.url}/token`,
          grant_types_supported: ['client_credentials'],
          token_endpoint_auth_methods_supported: ['client_secret_basic'],
        },
      };
    }
    issued += 1;
    const token = `cc-${issued}`;
    gate.valid.set(token, request.form.scope?.split(' ') ?? []);
    return { body: { access_token: token, token_type: 'Bearer', expires_in: 3600 } };
  });
  const asUrl = as.url;
  // The MCP server's origin: the protected resource metadata, and the bearer check before Keel.
  const fetchThroughGate: typeof fetch = async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (url === prmUrl) {
      return Response.json({ resource: mcpUrl, authorization_servers: [asUrl] });
    }
    if (!url.startsWith(mcpUrl)) return fetch(input, init);
    const authorization = new Headers(init?.headers).get('authorization');
    gate.seen.push(authorization);
    const scopes = gate.valid.get(authorization?.replace(/^Bearer /, '') ?? '');
    const challenge = `Bearer resource_metadata="${prmUrl}"`;
    if (!scopes) return new Response(null, { status: 401, headers: { 'www-authenticate': challenge } });
    if (!gate.required.every((scope) => scopes.includes(scope))) {
      const header = `Bearer error="insufficient_scope", scope="${gate.required.join(' ')}", resource_metadata="${prmUrl}"`;
      return new Response(null, { status: 403, headers: { 'www-authenticate': header } });
    }
    return fetch(input, init);
  };
  const auth = clientCredentialsAuth({
    issuer: asUrl,
    credentials: { clientId: 'svc', clientSecret: 'svc-secret' },
    fetch: fetchThroughGate,
  });
  return {
    mcpUrl,
    gate,
    auth,
    fetch: fetchThroughGate,
    tokenRequests: () => as!.requests.filter((r) => r.path === '/token'),
  };
}

test('first refusal: discovery, one token, then every request carries it', async () => {
  const { mcpUrl, gate, auth, fetch, tokenRequests } = await setup();
  const { client } = await connectClient(mcpUrl, { auth, fetch });
  await client.request('tools/list', {});
  await client.request('tools/call', { name: 'echo', arguments: {} });
  expect(tokenRequests()).toHaveLength(1);
  expect(tokenRequests()[0]!.form).toEqual({ grant_type: 'client_credentials', resource: mcpUrl });
  expect(gate.seen[0]).toBeNull();
  expect(gate.seen.slice(1).every((header) => header === 'Bearer cc-1')).toBe(true);
  await client.close();
});

test('a revoked token is replaced by exactly one new one', async () => {
  const { mcpUrl, gate, auth, fetch, tokenRequests } = await setup();
  const { client } = await connectClient(mcpUrl, { auth, fetch });
  await client.request('tools/list', {});
  gate.valid.delete('cc-1');
  await client.request('tools/list', {});
  expect(tokenRequests()).toHaveLength(2);
  expect(gate.seen.at(-1)).toBe('Bearer cc-2');
  await client.close();
});

test('403 insufficient_scope: a new token for the challenged scope, and the request goes through', async () => {
  const { mcpUrl, gate, auth, fetch, tokenRequests } = await setup();
  const { client } = await connectClient(mcpUrl, { auth, fetch });
  gate.required = ['tools:call'];
  await client.request('tools/call', { name: 'echo', arguments: {} });
  expect(tokenRequests().map((r) => r.form.scope)).toEqual([undefined, 'tools:call']);
  await client.close();
});
