/**
 * issue 27 machine: each machine provider lists the authorization extensions a client using it
 * declares, and `declareAuthExtensions` declares them, seen by the server in both eras (legacy:
 * at initialize; 2026-07-28: in each request's `_meta` client capabilities).
 */
import { afterEach, describe, expect, test } from 'vitest';
import {
  CLIENT_CREDENTIALS_EXTENSION_ID,
  DPOP_EXTENSION_ID,
  ENTERPRISE_MANAGED_AUTHORIZATION_EXTENSION_ID,
  McpClient,
  WORKLOAD_IDENTITY_EXTENSION_ID,
  clientCredentialsAuth,
  crossAppAccessAuth,
  declareAuthExtensions,
  workloadIdentityAuth,
  type MachineAuthProvider,
} from 'keel-mcp/client';
import { isExtensionId } from 'keel-mcp/core';
import { createMemoryPair } from 'keel-mcp/memory';
import { McpServer } from 'keel-mcp/server';
import { useProcessGuard, within } from '../helpers/guard.js';

useProcessGuard();

const ISSUER = 'https://as.example';
const credentials = { clientId: 'svc', clientSecret: 's3cr3t' };
const ALL = [
  CLIENT_CREDENTIALS_EXTENSION_ID,
  ENTERPRISE_MANAGED_AUTHORIZATION_EXTENSION_ID,
  WORKLOAD_IDENTITY_EXTENSION_ID,
  DPOP_EXTENSION_ID,
];

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const item of open.splice(0).reverse()) await item.close();
});

const idsOf = (auth: MachineAuthProvider) => auth.extensions.map((e) => e.id);

test('issue 27 machine: each provider lists its grant extension, and DPoP with the dpop option', () => {
  expect(idsOf(clientCredentialsAuth({ issuer: ISSUER, credentials }))).toEqual([
    'io.modelcontextprotocol/oauth-client-credentials',
  ]);
  const enterprise = crossAppAccessAuth({
    issuer: ISSUER,
    credentials,
    identityProvider: { issuer: 'https://idp.example', clientId: 'c' },
    idToken: 'id.token.here',
  });
  expect(idsOf(enterprise)).toEqual(['io.modelcontextprotocol/enterprise-managed-authorization']);
  expect(idsOf(workloadIdentityAuth({ issuer: ISSUER, platformToken: 'a.b.c', dpop: true }))).toEqual([
    'io.modelcontextprotocol/auth/wif',
    'io.modelcontextprotocol/auth/dpop',
  ]);
  for (const id of ALL) expect(isExtensionId(id)).toBe(true);
  expect(Object.isFrozen(enterprise.extensions)).toBe(true);
});

/** A server whose tool reports which of the authorization extensions this request's client declared. */
function reportingServer(): McpServer {
  const server = new McpServer({ name: 's', version: '1' });
  server.tool('declared', { description: 'which auth extensions the client declared' }, (_args, ctx) =>
    JSON.stringify(ALL.filter((id) => ctx.clientExtension(id) !== undefined)),
  );
  return server;
}

/** Connects a client that declared `auth`'s extensions; the ids the server saw declared. */
async function declaredBy(auth: Parameters<typeof declareAuthExtensions>[1], era: 'legacy' | 'modern') {
  const [clientSide, serverSide] = createMemoryPair();
  const session = reportingServer().connect(serverSide);
  const client = declareAuthExtensions(new McpClient({ name: 'c', version: '1' }, { era }), auth);
  await client.connect(clientSide);
  open.push({
    close: async () => {
      await client.close();
      await within(session.closed, 5_000, 'session.closed');
    },
  });
  const result = await client.callTool('declared', {});
  return JSON.parse((result.content as { text: string }[])[0]!.text) as string[];
}

describe.each(['legacy', 'modern'] as const)('%s era', (era) => {
  test('issue 27 machine: declareAuthExtensions declares the provider extensions to the server', async () => {
    const auth = clientCredentialsAuth({ issuer: ISSUER, credentials, dpop: true });
    expect(await declaredBy(auth, era)).toEqual([CLIENT_CREDENTIALS_EXTENSION_ID, DPOP_EXTENSION_ID]);
  });

  test('issue 27 machine: a provider without an extensions list declares nothing', async () => {
    const plain = { authorization: async () => undefined, challenge: async () => false };
    expect(await declaredBy(plain, era)).toEqual([]);
  });
});
