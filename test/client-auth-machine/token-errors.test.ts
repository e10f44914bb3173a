/**
 * Bad answers from a token endpoint, and bad configuration: each is a MachineAuthError with a
 * reason, and no message or cause carries the secret or a token.
 */
import { inspect } from 'node:util';
import { afterEach, expect, test } from 'vitest';
import { clientCredentialsAuth, MachineAuthError } from '../../src/client/auth/machine/index.js';
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

async function failure(answer: MockAnswer, extra: { allowInsecureHttp?: boolean } = {}) {
  as = await startMockServer(() => answer);
  const auth = clientCredentialsAuth({
    credentials: { clientId: 'svc', clientSecret: SECRET },
    discover: async () => resourceAt(as!),
    allowInsecureHttp: extra.allowInsecureHttp ?? true,
  });
  const error = await auth.challenge(refusal(401), signal).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(MachineAuthError);
  // Everything a log line could show: message, stack, cause chain.
  const shown = inspect(error, { depth: 10 });
  expect(shown).not.toContain(SECRET);
  return error as MachineAuthError;
}

test('an OAuth error answer names the error code and the endpoint, not the secret', async () => {
  const error = await failure({
    status: 400,
    body: { error: 'invalid_client', error_description: 'unknown client' },
  });
  expect(error.reason).toBe('token_request_failed');
  expect(error.oauthError).toBe('invalid_client');
  expect(error.status).toBe(400);
  expect(error.message).toContain('invalid_client');
  expect(error.message).toContain(`${as!.url}/token`);
});

test('a 401 from the token endpoint is a token_request_failed with the error code', async () => {
  const error = await failure({ status: 401, body: { error: 'invalid_client' } });
  expect(error.reason).toBe('token_request_failed');
  expect(error.oauthError).toBe('invalid_client');
});

test('a success that is not JSON is an invalid_token_response', async () => {
  const error = await failure({ status: 200, body: '<html>login</html>' });
  expect(error.reason).toBe('invalid_token_response');
});

test('a success without access_token is an invalid_token_response', async () => {
  const error = await failure({ status: 200, body: { token_type: 'Bearer', expires_in: 60 } });
  expect(error.reason).toBe('invalid_token_response');
  expect(error.message).toContain('access_token');
});

test('a token of an unknown type is refused, and the error does not show the token', async () => {
  const error = await failure({
    status: 200,
    body: { access_token: 'leaky-token-value', token_type: 'mac' },
  });
  expect(error.reason).toBe('invalid_token_response');
  expect(inspect(error, { depth: 10 })).not.toContain('leaky-token-value');
});

test('a non-OAuth error status is an invalid_token_response naming the status', async () => {
  const error = await failure({ status: 502, body: 'bad gateway' });
  expect(error.reason).toBe('invalid_token_response');
  expect(error.status).toBe(502);
});

test('an http: token endpoint is refused unless allowed, before anything is sent', async () => {
  const error = await failure({ body: {} }, { allowInsecureHttp: false });
  expect(error.reason).toBe('invalid_configuration');
  expect(as!.requests).toHaveLength(0);
});

test('an unreachable token endpoint is a network error', async () => {
  const closed = await startMockServer(() => ({ body: {} }));
  const target = resourceAt(closed);
  await closed.close();
  const auth = clientCredentialsAuth({
    credentials: { clientId: 'svc', clientSecret: SECRET },
    discover: async () => target,
    allowInsecureHttp: true,
  });
  await expect(auth.challenge(refusal(401), signal)).rejects.toMatchObject({ reason: 'network' });
});

test('empty credentials are refused when the provider is made', () => {
  expect(() => clientCredentialsAuth({ credentials: { clientId: '', clientSecret: 's' } })).toThrow(
    TypeError,
  );
});
