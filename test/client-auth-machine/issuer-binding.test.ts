/**
 * Authorization server binding (2026-07-28): a machine grant's credentials belong to one issuer;
 * when the MCP server names another, nothing is sent to that server's token endpoint (nor, for
 * cross-app access, is an ID-JAG requested for it).
 */
import { inspect } from 'node:util';
import { afterEach, expect, test } from 'vitest';
import { AuthorizationError } from 'keel-mcp/core';
import { clientCredentialsAuth, crossAppAccessAuth } from 'keel-mcp/client';
import { useProcessGuard } from '../helpers/guard.js';
import { refusal, resourceAt, startMockServer, tokenAnswer, type MockServer } from './mock-as.js';

useProcessGuard();

const SECRET = 'the-real-as-secret';
const signal = new AbortController().signal;
let as: MockServer | undefined;
afterEach(async () => {
  await as?.close();
  as = undefined;
});

async function refusedWith(promise: Promise<unknown>): Promise<AuthorizationError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AuthorizationError);
  return error as AuthorizationError;
}

test('client credentials: another issuer is refused (issuer-mismatch) before any token request', async () => {
  as = await startMockServer(() => tokenAnswer('stolen'));
  const auth = clientCredentialsAuth({
    issuer: 'https://auth.example.com',
    credentials: { clientId: 'svc', clientSecret: SECRET },
    discover: async () => resourceAt(as!),
  });
  const error = await refusedWith(auth.challenge(refusal(401), signal));
  expect(error.reason).toBe('issuer-mismatch');
  expect(error.message).toContain(as.url);
  expect(inspect(error, { depth: 10 })).not.toContain(SECRET);
  expect(as.requests).toHaveLength(0);
});

test('client credentials: default discovery, the protected resource metadata names an attacker AS', async () => {
  as = await startMockServer(() => tokenAnswer('stolen'));
  const attacker = as.url;
  const prm = 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp';
  const auth = clientCredentialsAuth({
    issuer: 'https://auth.example.com',
    credentials: { clientId: 'svc', clientSecret: SECRET },
    fetch: async (input, init) => {
      const href = String(input);
      if (href === prm) {
        return Response.json({ resource: 'https://mcp.example.com/mcp', authorization_servers: [attacker] });
      }
      if (href.startsWith(`${attacker}/.well-known/oauth-authorization-server`)) {
        return Response.json({ issuer: attacker, token_endpoint: `${attacker}/token` });
      }
      return fetch(input, init);
    },
  });
  const error = await refusedWith(auth.challenge(refusal(401, `Bearer resource_metadata="${prm}"`), signal));
  expect(error.reason).toBe('issuer-mismatch');
  expect(as.requests).toHaveLength(0);
});

test('client credentials: the bound issuer gets the token request', async () => {
  as = await startMockServer(() => tokenAnswer('tok-1'));
  const auth = clientCredentialsAuth({
    issuer: as.url,
    credentials: { clientId: 'svc', clientSecret: SECRET },
    discover: async () => resourceAt(as!),
  });
  expect(await auth.challenge(refusal(401), signal)).toBe(true);
  expect(as.requests.map((r) => r.path)).toEqual(['/token']);
});

test('a predicate binding decides, and sees the discovered issuer', async () => {
  as = await startMockServer(() => tokenAnswer('tok-1'));
  const seen: string[] = [];
  const auth = clientCredentialsAuth({
    issuer: (issuer) => (seen.push(issuer), false),
    credentials: { clientId: 'svc', clientSecret: SECRET },
    discover: async () => resourceAt(as!),
  });
  expect((await refusedWith(auth.challenge(refusal(401), signal))).reason).toBe('issuer-mismatch');
  expect(seen).toEqual([as.url]);
  expect(as.requests).toHaveLength(0);
});

test('cross-app access: another issuer is refused before the IdP is asked for an ID-JAG', async () => {
  as = await startMockServer(() => tokenAnswer('stolen'));
  const auth = crossAppAccessAuth({
    issuer: 'https://auth.example.com',
    credentials: { clientId: 'mcp-client', clientSecret: SECRET },
    identityProvider: {
      issuer: `${as.url}/idp`,
      clientId: 'idp-client',
      tokenEndpoint: `${as.url}/idp/token`,
    },
    idToken: 'id-token',
    discover: async () => resourceAt(as!),
  });
  expect((await refusedWith(auth.challenge(refusal(401), signal))).reason).toBe('issuer-mismatch');
  expect(as.requests).toHaveLength(0);
});

test('a missing or empty issuer is refused when the provider is made', () => {
  const credentials = { clientId: 'svc', clientSecret: SECRET };
  expect(() => clientCredentialsAuth({ issuer: '', credentials })).toThrow(TypeError);
  expect(() =>
    clientCredentialsAuth({ credentials } as unknown as Parameters<typeof clientCredentialsAuth>[0]),
  ).toThrow(/issuer is required/);
});
