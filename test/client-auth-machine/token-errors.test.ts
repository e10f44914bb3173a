/**
 * Bad answers from a token endpoint, and bad configuration: each is a typed AuthorizationError
 * (TokenEndpointError for the endpoint's answers), and nothing a log could show (message, stack,
 * cause chain) carries the secret or a token.
 */
import { inspect } from 'node:util';
import { afterEach, expect, test } from 'vitest';
import { AuthorizationError } from 'keel-mcp/core';
import { clientCredentialsAuth, TokenEndpointError } from 'keel-mcp/client';
import { useProcessGuard } from '../helpers/guard.js';
import { refusal, resourceAt, startMockServer, type MockAnswer, type MockServer } from './mock-as.js';

useProcessGuard();

const SECRET = 'the-client-secret-7f3a';
const signal = new AbortController().signal;
let as: MockServer | undefined;
afterEach(async () => {
  await as?.close();
  as = undefined;
});

async function failure(answer: MockAnswer): Promise<AuthorizationError> {
  as = await startMockServer(() => answer);
  const auth = clientCredentialsAuth({
    issuer: as.url,
    credentials: { clientId: 'svc', clientSecret: SECRET },
    discover: async () => resourceAt(as!),
  });
  const error = await auth.challenge(refusal(401), signal).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AuthorizationError);
  expect(inspect(error, { depth: 10 })).not.toContain(SECRET);
  return error as AuthorizationError;
}

test('an OAuth error answer names the error code and the endpoint, not the secret', async () => {
  const error = await failure({
    status: 400,
    body: { error: 'invalid_client', error_description: 'unknown client' },
  });
  expect(error).toBeInstanceOf(TokenEndpointError);
  expect(error).toMatchObject({ reason: 'token', oauthError: 'invalid_client', status: 400 });
  expect(error.message).toContain('invalid_client');
  expect(error.message).toContain(`${as!.url}/token`);
});

test('a 401 from the token endpoint names the error code', async () => {
  const error = await failure({ status: 401, body: { error: 'invalid_client' } });
  expect(error).toMatchObject({ reason: 'token', oauthError: 'invalid_client', status: 401 });
});

test('a success that is not JSON is a token error without an OAuth code', async () => {
  const error = await failure({ status: 200, body: '<html>login</html>' });
  expect(error).toBeInstanceOf(TokenEndpointError);
  expect(error).toMatchObject({ reason: 'token', oauthError: undefined, status: 200 });
  expect(error.message).toContain('application/json');
});

test('a success without access_token is a token error naming the field', async () => {
  const error = await failure({ status: 200, body: { token_type: 'Bearer', expires_in: 60 } });
  expect(error).toMatchObject({ reason: 'token', oauthError: undefined });
  expect(error.message).toContain('access_token');
});

test('a token of an unknown type is refused, and the error does not show the token', async () => {
  const error = await failure({
    status: 200,
    body: { access_token: 'leaky-token-value', token_type: 'mac' },
  });
  expect(error).toMatchObject({ reason: 'token' });
  expect(inspect(error, { depth: 10 })).not.toContain('leaky-token-value');
});

test('an access_token that cannot be a header value is refused, without showing it', async () => {
  const error = await failure({
    status: 200,
    body: { access_token: 'evil\r\nx-injected: 1', token_type: 'Bearer' },
  });
  expect(error).toBeInstanceOf(TokenEndpointError);
  expect(error.message).toContain('Authorization header');
  expect(inspect(error, { depth: 10 })).not.toContain('x-injected');
});

test('a redirect from the token endpoint is not followed', async () => {
  // Followed, it would be a second request to the same server (and a token from there).
  const error = await failure({ status: 302, body: {}, headers: { location: '/elsewhere' } });
  expect(error).toMatchObject({ name: 'AuthorizationError', reason: 'redirect' });
  expect(as!.requests).toHaveLength(1);
});

test('a non-OAuth error status is a token error naming the status', async () => {
  const error = await failure({ status: 502, body: 'bad gateway' });
  expect(error).toMatchObject({ reason: 'token', status: 502 });
});

test('an http: token endpoint off loopback is refused before anything is sent', async () => {
  const auth = clientCredentialsAuth({
    issuer: 'http://as.example.com',
    credentials: { clientId: 'svc', clientSecret: SECRET },
    discover: async () => ({
      resource: 'https://mcp.example.com/mcp',
      authorizationServer: { issuer: 'http://as.example.com', token_endpoint: 'http://as.example.com/token' },
    }),
    fetch: () => Promise.reject(new Error('nothing may be sent')),
  });
  await expect(auth.challenge(refusal(401), signal)).rejects.toMatchObject({
    name: 'AuthorizationError',
    reason: 'insecure-url',
  });
});

test('an unreachable token endpoint is a token error', async () => {
  const closed = await startMockServer(() => ({ body: {} }));
  const target = resourceAt(closed);
  await closed.close();
  const auth = clientCredentialsAuth({
    issuer: target.authorizationServer.issuer,
    credentials: { clientId: 'svc', clientSecret: SECRET },
    discover: async () => target,
  });
  await expect(auth.challenge(refusal(401), signal)).rejects.toMatchObject({ reason: 'token' });
});

test('empty credentials are refused when the provider is made', () => {
  expect(() =>
    clientCredentialsAuth({
      issuer: 'https://as.example.com',
      credentials: { clientId: '', clientSecret: 's' },
    }),
  ).toThrow(TypeError);
});
