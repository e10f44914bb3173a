/**
 * issue 27 machine: workload identity federation (SEP-1933) against an authorization server on
 * loopback: the JWT bearer grant on the wire, the platform token re-read from its source on every
 * token request (rotation), and clear typed errors, each before anything is sent when it can be.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { SignJWT } from 'jose';
import { afterEach, expect, test, vi } from 'vitest';
import {
  AuthorizationError,
  TokenEndpointError,
  workloadIdentityAuth,
  type PlatformToken,
  type PlatformTokenRequest,
} from 'keel-mcp/client';
import { platformTokenFile } from 'keel-mcp/node';
import { useProcessGuard } from '../helpers/guard.js';
import {
  refusal,
  resourceAt,
  startMockServer,
  tokenAnswer,
  type MockAnswer,
  type MockServer,
} from './mock-as.js';

useProcessGuard();

const signal = new AbortController().signal;
const url = new URL('https://mcp.example.com/mcp');
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const key = new TextEncoder().encode('k'.repeat(32));
let server: MockServer | undefined;
let dir: string | undefined;
afterEach(async () => {
  vi.useRealTimers();
  delete process.env.KEEL_TEST_WIF_TOKEN;
  await server?.close();
  server = undefined;
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

/** A platform JWT (the client never verifies it: HS256 keeps the test short). */
function platformJwt(subject: string, expiresIn: string | number = '10m'): Promise<string> {
  return new SignJWT({})
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer('https://kubernetes.default.svc')
    .setSubject(subject)
    .setAudience('https://as.example')
    .setIssuedAt()
    .setExpirationTime(expiresIn)
    .sign(key);
}

async function authorizationServer(answer: () => MockAnswer = () => tokenAnswer('mcp-access-token')) {
  server = await startMockServer(answer);
  return server;
}

function provider(mock: MockServer, platformToken: PlatformToken, clientId?: string) {
  return workloadIdentityAuth({
    issuer: mock.url,
    platformToken,
    ...(clientId !== undefined && { clientId }),
    discover: async () => resourceAt(mock),
  });
}

async function tokenFile(content: string): Promise<string> {
  dir ??= await mkdtemp(join(tmpdir(), 'keel-wif-'));
  const file = join(dir, 'token');
  await writeFile(file, content);
  return file;
}

test('issue 27 machine: sends the platform token as the RFC 7523 assertion with the resource, no client authentication', async () => {
  const mock = await authorizationServer();
  const jwt = await platformJwt('system:serviceaccount:jobs:report');
  const auth = provider(mock, jwt);
  expect(await auth.challenge(refusal(401, 'Bearer scope="files:read"'), signal)).toBe(true);
  expect(await auth.authorization(url, signal)).toBe('Bearer mcp-access-token');
  expect(mock.requests).toHaveLength(1);
  const [request] = mock.requests;
  expect(request!.path).toBe('/token');
  expect(request!.form).toEqual({
    grant_type: JWT_BEARER,
    assertion: jwt,
    resource: 'https://mcp.example.com/mcp',
    scope: 'files:read',
  });
  expect(request!.authorization).toBeUndefined();
});

test('issue 27 machine: a clientId goes along as client_id, still without a secret', async () => {
  const mock = await authorizationServer();
  const auth = provider(mock, await platformJwt('w'), 'conformance-wif-workload');
  await auth.challenge(refusal(401), signal);
  expect(mock.requests[0]!.form.client_id).toBe('conformance-wif-workload');
  expect(mock.requests[0]!.authorization).toBeUndefined();
});

test('issue 27 machine: a token file is read again for each token request (rotation)', async () => {
  let issued = 0;
  const mock = await authorizationServer(() => tokenAnswer(`access-${++issued}`));
  const first = await platformJwt('rotated-1');
  const file = await tokenFile(`${first}\n`);
  const auth = provider(mock, platformTokenFile(file));
  await auth.challenge(refusal(401), signal);
  expect(await auth.authorization(url, signal)).toBe('Bearer access-1');
  // A later request: a 401 for a token used more than once is a renewal, not a loop.
  expect(await auth.authorization(url, signal)).toBe('Bearer access-1');

  const second = await platformJwt('rotated-2');
  await writeFile(file, second); // the kubelet rewrites the projected token in place
  await auth.challenge(refusal(401), signal); // the server refused access-1
  expect(await auth.authorization(url, signal)).toBe('Bearer access-2');
  expect(mock.requests.map((r) => r.form.assertion)).toEqual([first, second]);
});

test('issue 27 machine: an expired access token is renewed with the current platform token', async () => {
  vi.useFakeTimers({ toFake: ['Date'] });
  let issued = 0;
  const mock = await authorizationServer(() => tokenAnswer(`access-${++issued}`, { expires_in: 60 }));
  const file = await tokenFile(await platformJwt('before', '2h'));
  const auth = provider(mock, platformTokenFile(file));
  await auth.challenge(refusal(401), signal);
  expect(await auth.authorization(url, signal)).toBe('Bearer access-1');
  const rotated = await platformJwt('after', '2h');
  await writeFile(file, rotated);
  vi.setSystemTime(Date.now() + 61_000);
  expect(await auth.authorization(url, signal)).toBe('Bearer access-2');
  expect(mock.requests[1]!.form.assertion).toBe(rotated);
});

test('issue 27 machine: an environment variable is read for each token request', async () => {
  const mock = await authorizationServer();
  const jwt = await platformJwt('from-env');
  process.env.KEEL_TEST_WIF_TOKEN = jwt;
  const auth = provider(mock, { env: 'KEEL_TEST_WIF_TOKEN' });
  await auth.challenge(refusal(401), signal);
  expect(mock.requests[0]!.form.assertion).toBe(jwt);
});

test('issue 27 machine: a token function is told the authorization server and the resource', async () => {
  const mock = await authorizationServer();
  const jwt = await platformJwt('from-function');
  const seen: Omit<PlatformTokenRequest, 'signal'>[] = [];
  const auth = provider(mock, ({ issuer, tokenEndpoint, resource }) => {
    seen.push({ issuer, tokenEndpoint, resource });
    return jwt;
  });
  await auth.challenge(refusal(401), signal);
  expect(seen).toEqual([
    { issuer: mock.url, tokenEndpoint: `${mock.url}/token`, resource: 'https://mcp.example.com/mcp' },
  ]);
  expect(mock.requests[0]!.form.assertion).toBe(jwt);
});

/** The provider's first token step fails: its error, and no token request was sent. */
async function failsBeforeSending(platformToken: PlatformToken): Promise<AuthorizationError> {
  const mock = await authorizationServer();
  const error: unknown = await provider(mock, platformToken)
    .challenge(refusal(401), signal)
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  expect(error).toBeInstanceOf(AuthorizationError);
  expect(mock.requests).toHaveLength(0);
  return error as AuthorizationError;
}

test('issue 27 machine: a missing token file is a clear token error naming the file, nothing sent', async () => {
  const missing = join(tmpdir(), 'keel-wif-no-such-dir', 'token');
  const error = await failsBeforeSending(platformTokenFile(missing));
  expect(error.reason).toBe('token');
  expect(error.message).toContain(missing);
  expect(error.message).toContain('ENOENT');
});

test('issue 27 machine: an unset variable, an empty file, a non-JWT and an expired token are refused before sending', async () => {
  expect((await failsBeforeSending({ env: 'KEEL_TEST_WIF_TOKEN' })).message).toContain(
    'KEEL_TEST_WIF_TOKEN is not set',
  );
  await server?.close();
  expect((await failsBeforeSending(platformTokenFile(await tokenFile('\n')))).message).toContain('is empty');
  await server?.close();
  expect((await failsBeforeSending('not a jwt')).message).toContain('is not a JWT');
  await server?.close();
  const expired = await platformJwt('old', Math.floor(Date.now() / 1000) - 60);
  const error = await failsBeforeSending(expired);
  expect(error.message).toContain('expired at');
  expect(error.message).not.toContain(expired);
});

test('issue 27 machine: a token function that throws fails the request with its message as cause', async () => {
  const error = await failsBeforeSending(() => {
    throw new Error('metadata server unreachable');
  });
  expect(error.reason).toBe('token');
  expect(error.message).toContain('metadata server unreachable');
});

test('issue 27 machine: a refused assertion is a TokenEndpointError without the assertion, and no retry', async () => {
  const mock = await authorizationServer(() => ({
    status: 400,
    body: { error: 'invalid_grant', error_description: 'JWT assertion is expired' },
  }));
  const jwt = await platformJwt('refused');
  const auth = provider(mock, jwt);
  const error: unknown = await auth.challenge(refusal(401), signal).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(TokenEndpointError);
  expect((error as TokenEndpointError).oauthError).toBe('invalid_grant');
  expect(inspect(error)).not.toContain(jwt);
  expect(mock.requests.map((r) => r.form.grant_type)).toEqual([JWT_BEARER]);
  expect(await auth.authorization(url, signal)).toBeUndefined();
});

test('issue 27 machine: a malformed token answer is a TokenEndpointError', async () => {
  const mock = await authorizationServer(() => ({ body: { token_type: 'Bearer' } }));
  const error: unknown = await provider(mock, await platformJwt('w'))
    .challenge(refusal(401), signal)
    .catch((e: unknown) => e);
  expect(error).toBeInstanceOf(TokenEndpointError);
  expect((error as TokenEndpointError).oauthError).toBeUndefined();
});

test('issue 27 machine: bad options are TypeErrors when the provider is made', () => {
  const base = { issuer: 'https://as.example' };
  expect(() => workloadIdentityAuth({ ...base, platformToken: '' })).toThrow(TypeError);
  expect(() => platformTokenFile('')).toThrow(TypeError);
  expect(() => workloadIdentityAuth({ ...base, platformToken: {} as PlatformToken })).toThrow(TypeError);
  expect(() => workloadIdentityAuth({ ...base, platformToken: 'a.b.c', clientId: '' })).toThrow(TypeError);
  expect(() => workloadIdentityAuth({ issuer: '', platformToken: 'a.b.c' })).toThrow(TypeError);
});
