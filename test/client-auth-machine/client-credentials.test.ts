/**
 * The client credentials grant against a token endpoint on loopback: what is sent (form fields,
 * Authorization header, the private_key_jwt assertion), and scope selection.
 */
import { exportPKCS8, generateKeyPair, jwtVerify, decodeProtectedHeader } from 'jose';
import { afterEach, describe, expect, test } from 'vitest';
import { clientCredentialsAuth, type ProtectedResource } from 'keel-mcp/client';
import { useProcessGuard } from '../helpers/guard.js';
import { refusal, resourceAt, startMockServer, tokenAnswer, type MockServer } from './mock-as.js';

useProcessGuard();

const SECRET = 'very-secret-value';
let as: MockServer | undefined;
afterEach(async () => {
  await as?.close();
  as = undefined;
});

const signal = new AbortController().signal;
const url = new URL('https://mcp.example.com/mcp');

function fixed(target: ProtectedResource) {
  return async () => target;
}

describe('client_secret_basic', () => {
  test('sends grant_type, resource and the challenged scope, and HTTP Basic credentials', async () => {
    as = await startMockServer(() => tokenAnswer('tok-1'));
    const auth = clientCredentialsAuth({
      issuer: as.url,
      credentials: { clientId: 'svc:one', clientSecret: SECRET },
      discover: fixed(resourceAt(as)),
    });
    expect(await auth.authorization(url, signal)).toBeUndefined();
    expect(await auth.challenge(refusal(401, 'Bearer scope="mcp:read mcp:write"'), signal)).toBe(true);
    expect(await auth.authorization(url, signal)).toBe('Bearer tok-1');

    expect(as.requests).toHaveLength(1);
    const [request] = as.requests;
    expect(request!.path).toBe('/token');
    expect(request!.method).toBe('POST');
    expect(request!.form).toEqual({
      grant_type: 'client_credentials',
      resource: 'https://mcp.example.com/mcp',
      scope: 'mcp:read mcp:write',
    });
    // RFC 6749 §2.3.1: both parts form-encoded before base64: the ':' in the id becomes %3A, the
    // '-' of the secret stays as it is (servers that skip form-decoding still read it).
    expect(request!.authorization).toBe(`Basic ${btoa(`svc%3Aone:${SECRET}`)}`);
  });

  test('scope falls back to the resource metadata scopes_supported', async () => {
    as = await startMockServer(() => tokenAnswer('tok-1'));
    const auth = clientCredentialsAuth({
      issuer: as.url,
      credentials: { clientId: 'svc', clientSecret: SECRET },
      discover: fixed(resourceAt(as, { scopesSupported: ['a', 'b'] })),
    });
    await auth.challenge(refusal(401, 'Bearer resource_metadata="https://mcp.example.com/prm"'), signal);
    expect(as.requests[0]!.form.scope).toBe('a b');
  });

  test('no scope is sent when neither the challenge nor the metadata names one', async () => {
    as = await startMockServer(() => tokenAnswer('tok-1'));
    const auth = clientCredentialsAuth({
      issuer: as.url,
      credentials: { clientId: 'svc', clientSecret: SECRET },
      discover: fixed(resourceAt(as)),
    });
    await auth.challenge(refusal(401, undefined), signal);
    expect(as.requests[0]!.fields.sort()).toEqual(['grant_type', 'resource']);
  });
});

describe('client_secret_post', () => {
  test('is used when the server lists only it: credentials in the body, no Authorization header', async () => {
    as = await startMockServer(() => tokenAnswer('tok-1'));
    const auth = clientCredentialsAuth({
      issuer: as.url,
      credentials: { clientId: 'svc', clientSecret: SECRET },
      discover: fixed(resourceAt(as, { tokenEndpointAuthMethods: ['client_secret_post'] })),
    });
    await auth.challenge(refusal(401), signal);
    const [request] = as.requests;
    expect(request!.authorization).toBeUndefined();
    expect(request!.form).toEqual({
      grant_type: 'client_credentials',
      resource: 'https://mcp.example.com/mcp',
      client_id: 'svc',
      client_secret: SECRET,
    });
  });

  test('a server that supports neither secret method gets a typed error, before any request', async () => {
    as = await startMockServer(() => tokenAnswer('tok-1'));
    const auth = clientCredentialsAuth({
      issuer: as.url,
      credentials: { clientId: 'svc', clientSecret: SECRET },
      discover: fixed(resourceAt(as, { tokenEndpointAuthMethods: ['private_key_jwt'] })),
    });
    await expect(auth.challenge(refusal(401), signal)).rejects.toMatchObject({
      name: 'AuthorizationError',
      reason: 'registration',
    });
    expect(as.requests).toHaveLength(0);
  });
});

describe('private_key_jwt', () => {
  test('the assertion verifies with the public key and carries iss = sub = client_id, aud = issuer, jti, short exp', async () => {
    const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
    const pem = await exportPKCS8(privateKey);
    as = await startMockServer(() => tokenAnswer('tok-jwt'));
    const auth = clientCredentialsAuth({
      issuer: as.url,
      credentials: { clientId: 'svc-jwt', privateKey: pem, algorithm: 'ES256', keyId: 'k1' },
      discover: fixed(resourceAt(as)),
    });
    await auth.challenge(refusal(401, 'Bearer scope="s1"'), signal);
    await auth.challenge(refusal(403, 'Bearer error="insufficient_scope", scope="s2"'), signal);
    expect(await auth.authorization(url, signal)).toBe('Bearer tok-jwt');

    expect(as.requests).toHaveLength(2);
    const jtis = new Set<unknown>();
    for (const request of as.requests) {
      expect(request.authorization).toBeUndefined();
      expect(request.form).toMatchObject({
        grant_type: 'client_credentials',
        client_id: 'svc-jwt',
        client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
        resource: 'https://mcp.example.com/mcp',
      });
      const assertion = request.form.client_assertion!;
      expect(decodeProtectedHeader(assertion)).toMatchObject({ alg: 'ES256', kid: 'k1' });
      const { payload } = await jwtVerify(assertion, publicKey, { audience: as.url, issuer: 'svc-jwt' });
      expect(payload.sub).toBe('svc-jwt');
      expect(typeof payload.jti).toBe('string');
      expect(payload.exp! - payload.iat!).toBeLessThanOrEqual(300);
      jtis.add(payload.jti);
    }
    expect(jtis.size).toBe(2);
  });

  test('a WebCrypto private key is used as it is', async () => {
    const { publicKey, privateKey } = await generateKeyPair('ES384');
    as = await startMockServer(() => tokenAnswer('tok-jwt'));
    const auth = clientCredentialsAuth({
      issuer: as.url,
      credentials: { clientId: 'svc-key', privateKey },
      discover: fixed(resourceAt(as)),
    });
    await auth.challenge(refusal(401), signal);
    const assertion = as.requests[0]!.form.client_assertion!;
    expect(decodeProtectedHeader(assertion).alg).toBe('ES384');
    const { payload } = await jwtVerify(assertion, publicKey, { audience: as.url, issuer: 'svc-key' });
    expect(payload.sub).toBe('svc-key');
  });

  test('a private key that is not PKCS#8 gets a typed error that does not quote it', async () => {
    as = await startMockServer(() => tokenAnswer('tok'));
    const bogus = '-----BEGIN PRIVATE KEY-----\nbm90LWEta2V5LXNlY3JldA==\n-----END PRIVATE KEY-----';
    const auth = clientCredentialsAuth({
      issuer: as.url,
      credentials: { clientId: 'svc', privateKey: bogus, algorithm: 'ES256' },
      discover: fixed(resourceAt(as)),
    });
    const error = await auth.challenge(refusal(401), signal).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'AuthorizationError', reason: 'registration' });
    expect((error as Error).message).not.toContain('bm90LWEta2V5LXNlY3JldA');
    expect(as.requests).toHaveLength(0);
  });
});
