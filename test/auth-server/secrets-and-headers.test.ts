/**
 * Issue 11, resource server: nothing that holds a token reaches a log line or an error body, and
 * the two RFC 6750 header formats (reading Authorization, writing WWW-Authenticate) are strict.
 */
import { afterAll, afterEach, beforeAll, expect, test } from 'vitest';
import type { HttpServing } from 'keel-mcp/node';
import { bearerChallenge, parseAuthorization, quoteParam } from '../../src/server/auth/challenge.js';
import { InvalidTokenError, JwtVerifier, type TokenVerifier } from 'keel-mcp/server';
import { useProcessGuard } from '../helpers/guard.js';
import { initializeRequest, post } from '../http-server/support/harness.js';
import {
  jwtAuth,
  KeyServer,
  mint,
  serveProtected,
  signingKey,
  SpyLogger,
  staticAuth,
  type SigningKey,
} from './support.js';

useProcessGuard();

let keys: KeyServer;
let key: SigningKey;
let serving: HttpServing | undefined;

beforeAll(async () => {
  keys = await new KeyServer().start();
  key = await signingKey('k1');
  keys.keys = [key];
});
afterAll(() => keys.close());
afterEach(async () => {
  await serving?.close({ deadlineMs: 2_000 });
  serving = undefined;
  keys.down = false;
});

async function attempt(url: string, token: string) {
  const response = await post(url, initializeRequest(), { headers: { authorization: `Bearer ${token}` } });
  return {
    status: response.status,
    text: `${response.headers.get('www-authenticate') ?? ''}\n${await response.text()}`,
  };
}

test('no token text in any log line or reply, whatever the verifier outcome', async () => {
  const logger = new SpyLogger();
  serving = await serveProtected(jwtAuth(keys), { logger });
  const tokens = [
    await mint(keys.issuer, key, { expiresIn: -60 }),
    await mint(keys.issuer, key, { audience: 'https://elsewhere.test' }),
    await mint(keys.issuer, key, { key: await signingKey('k1') }),
    'garbageAAA.bbbCCC.dddEEE',
  ];
  for (const token of tokens) {
    const answer = await attempt(serving.url, token);
    expect(answer.status).toBe(401);
    expect(answer.text).not.toContain(token);
    expect(answer.text).not.toContain(token.split('.')[1]);
  }
  keys.down = true;
  const fresh = new JwtVerifier({
    issuer: keys.issuer,
    audience: 'https://mcp.test/mcp',
    jwksUri: keys.jwksUri,
  });
  await serving.close();
  serving = await serveProtected(jwtAuth(keys, {}, fresh), { logger });
  const token = await mint(keys.issuer, key);
  const answer = await attempt(serving.url, token);
  expect(answer.status).toBe(503);
  expect(answer.text).not.toContain(token);
  expect(logger.lines.length).toBeGreaterThan(0);
  for (const line of logger.lines) for (const t of [...tokens, token]) expect(line).not.toContain(t);
});

test('a custom verifier that puts the token in its error: 500, and the logged line has it masked', async () => {
  const logger = new SpyLogger();
  const leaky: TokenVerifier = { verify: (token) => Promise.reject(new Error(`cannot check ${token} now`)) };
  serving = await serveProtected(staticAuth({ verifier: leaky }), { logger });
  const answer = await attempt(serving.url, 'SECRET-TOKEN-123');
  expect(answer.status).toBe(500);
  expect(answer.text).not.toContain('SECRET-TOKEN-123');
  expect(logger.lines).toEqual(['Token verifier failed: Error: cannot check [token] now']);
});

test('an InvalidTokenError whose message holds the token: the description has it masked', async () => {
  const leaky: TokenVerifier = {
    verify: (token) => Promise.reject(new InvalidTokenError(`bad token ${token}`)),
  };
  serving = await serveProtected(staticAuth({ verifier: leaky }));
  const answer = await attempt(serving.url, 'SECRET-TOKEN-456');
  expect(answer.status).toBe(401);
  expect(answer.text).toContain('error_description="bad token [token]"');
  expect(answer.text).not.toContain('SECRET-TOKEN-456');
});

test('a verifier resolving with something that is not an AuthInfo: 500, nothing served', async () => {
  const wrong = { verify: () => Promise.resolve({ user: 'x' }) } as unknown as TokenVerifier;
  serving = await serveProtected(staticAuth({ verifier: wrong }), { logger: new SpyLogger() });
  expect((await attempt(serving.url, 'abc')).status).toBe(500);
  expect(serving.handler.sessionCount).toBe(0);
});

test('parseAuthorization: scheme case-insensitive, one or more spaces, b64token only, 8 KiB at most', () => {
  expect(parseAuthorization(null)).toEqual({ kind: 'none' });
  expect(parseAuthorization('Bearer abc.DEF-_~+/=')).toEqual({ kind: 'bearer', token: 'abc.DEF-_~+/=' });
  expect(parseAuthorization('bearer abc')).toEqual({ kind: 'bearer', token: 'abc' });
  expect(parseAuthorization('BEARER abc')).toEqual({ kind: 'bearer', token: 'abc' });
  expect(parseAuthorization('Bearer  abc')).toEqual({ kind: 'bearer', token: 'abc' });
  expect(parseAuthorization('Bearer    abc')).toEqual({ kind: 'bearer', token: 'abc' });
  expect(parseAuthorization('Basic abc')).toEqual({ kind: 'other-scheme' });
  // The DPoP scheme (RFC 9449 §7.1) is read; the guard refuses it unless `dpop` is on.
  expect(parseAuthorization('DPoP abc')).toEqual({ kind: 'dpop', token: 'abc' });
  for (const bad of [
    '',
    ' abc',
    'Bearer',
    'Bearer ',
    'Bearer   ',
    'Bearer abc ',
    'Bearer a b',
    'Bearer a=b',
    'Bearer a\tb',
    'Bearer a,Bearer b',
  ]) {
    expect(parseAuthorization(bad).kind, JSON.stringify(bad)).toBe('malformed');
  }
  expect(parseAuthorization(`Bearer ${'a'.repeat(8 * 1024 - 7)}`).kind).toBe('bearer');
  expect(parseAuthorization(`Bearer ${'a'.repeat(8 * 1024 - 6)}`).kind).toBe('malformed');
});

test('challenge values are quote-escaped and cannot break the header', () => {
  expect(quoteParam('plain')).toBe('"plain"');
  expect(quoteParam('a "quoted" \\ path')).toBe('"a \\"quoted\\" \\\\ path"');
  expect(quoteParam('line\r\nSet-Cookie: x=1')).toBe('"line??Set-Cookie: x=1"');
  expect(quoteParam('café')).toBe('"caf?"');
  expect(bearerChallenge({ error: 'invalid_token', scope: undefined, error_description: 'say "hi"' })).toBe(
    'Bearer error="invalid_token", error_description="say \\"hi\\""',
  );
  expect(() => new Headers({ 'www-authenticate': bearerChallenge({ d: 'x\r\ny' }) })).not.toThrow();
});
