/**
 * Issue 11, resource server: RFC 7662 introspection. A tiny introspection endpoint (node:http,
 * 127.0.0.1) that checks our Basic client authentication; a protected serveHttp endpoint in front.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, afterEach, beforeAll, expect, test, vi } from 'vitest';
import type { HttpServing } from 'keel-mcp/node';
import {
  IntrospectionVerifier,
  type IntrospectionVerifierOptions,
  InvalidTokenError,
  TokenVerifierUnavailableError,
} from 'keel-mcp/server';
import { IntrospectionCache } from '../../src/server/auth/introspection-cache.js';
import { useProcessGuard } from '../helpers/guard.js';
import { initializeRequest, post } from '../http-server/support/harness.js';
import { json, KeyServer, RESOURCE, serveProtected, SpyLogger, staticAuth } from './support.js';

useProcessGuard();

const CLIENT_ID = 'mcp-server';
const CLIENT_SECRET = 's3cr:et with spaces';

let as: KeyServer;
/** What the endpoint answers per token; tokens not listed are inactive. */
const answers = new Map<string, Record<string, unknown>>();
let calls = 0;
let serving: HttpServing | undefined;

function introspect(req: IncomingMessage, res: ServerResponse, body: string): void {
  calls += 1;
  const expected = `Basic ${btoa(`${encodeURIComponent(CLIENT_ID)}:${encodeURIComponent(CLIENT_SECRET).replace(/%20/g, '+')}`)}`;
  if (req.method !== 'POST' || req.headers.authorization !== expected) {
    res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"invalid_client"}');
    return;
  }
  const form = new URLSearchParams(body);
  json(res, answers.get(form.get('token') ?? '') ?? { active: false });
}

beforeAll(async () => {
  as = await new KeyServer().start();
  as.routes.set('/introspect', introspect);
});
afterAll(() => as.close());
afterEach(async () => {
  await serving?.close({ deadlineMs: 2_000 });
  serving = undefined;
  answers.clear();
  as.down = false;
});

function verifier(options: Partial<IntrospectionVerifierOptions> = {}): IntrospectionVerifier {
  return new IntrospectionVerifier({
    endpoint: `${as.issuer}/introspect`,
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    audience: RESOURCE,
    ...options,
  });
}

const inFive = () => Math.floor(Date.now() / 1000) + 300;

async function initialize(
  token: string,
  options: Partial<IntrospectionVerifierOptions> = {},
  logger?: SpyLogger,
) {
  serving = await serveProtected(staticAuth({ verifier: verifier(options) }), logger ? { logger } : {});
  const response = await post(serving.url, initializeRequest(), {
    headers: { authorization: `Bearer ${token}` },
  });
  return {
    status: response.status,
    challenge: response.headers.get('www-authenticate'),
    body: await response.text(),
  };
}

test('an active token for this audience: served, with subject and scopes from the answer', async () => {
  answers.set('opaque-1', {
    active: true,
    sub: 'alice',
    scope: 'mcp read',
    client_id: 'app',
    aud: RESOURCE,
    exp: inFive(),
  });
  const auth = await verifier().verify('opaque-1');
  expect(auth).toMatchObject({
    subject: 'alice',
    scopes: ['mcp', 'read'],
    clientId: 'app',
    audience: [RESOURCE],
  });
  expect((await initialize('opaque-1')).status).toBe(200);
});

test('an inactive token: 401 invalid_token', async () => {
  answers.set('opaque-2', { active: false });
  const answer = await initialize('opaque-2');
  expect(answer.status).toBe(401);
  expect(answer.challenge).toContain('error="invalid_token", error_description="The token is not active"');
  expect(answer.body).not.toContain('opaque-2');
});

test('an active token for another audience: 401 invalid_token', async () => {
  answers.set('opaque-3', { active: true, sub: 'alice', aud: ['https://other.test/mcp'], exp: inFive() });
  const answer = await initialize('opaque-3');
  expect(answer.status).toBe(401);
  expect(answer.challenge).toContain('error_description="The token is for another audience (aud)"');
});

test('an "active" answer with a past exp: 401 invalid_token', async () => {
  answers.set('opaque-4', { active: true, sub: 'alice', exp: Math.floor(Date.now() / 1000) - 10 });
  await expect(verifier().verify('opaque-4')).rejects.toThrow(InvalidTokenError);
});

test('with issuer set, an answer naming another iss is refused; without iss it is accepted as from that issuer', async () => {
  answers.set('opaque-10', {
    active: true,
    sub: 'alice',
    iss: 'https://evil.test',
    aud: RESOURCE,
    exp: inFive(),
  });
  answers.set('opaque-11', { active: true, sub: 'alice', aud: RESOURCE, exp: inFive() });
  const strict = verifier({ issuer: as.issuer });
  await expect(strict.verify('opaque-10')).rejects.toThrow(/another issuer/);
  expect(await strict.verify('opaque-11')).toMatchObject({ subject: 'alice', issuer: as.issuer });
});

test('an active token with no aud: 401 invalid_token by default (it may be for another resource)', async () => {
  answers.set('opaque-12', { active: true, sub: 'alice', exp: inFive() });
  await expect(verifier().verify('opaque-12')).rejects.toThrow('The token names no audience (aud)');
  const answer = await initialize('opaque-12');
  expect(answer.status).toBe(401);
  expect(answer.challenge).toContain(
    'error="invalid_token", error_description="The token names no audience (aud)"',
  );
});

test('requireAudience: false accepts an answer without aud, still refuses one naming another audience', async () => {
  answers.set('opaque-13', { active: true, sub: 'alice', exp: inFive() });
  answers.set('opaque-14', { active: true, sub: 'alice', aud: 'https://other.test/mcp', exp: inFive() });
  const lax = verifier({ requireAudience: false });
  expect((await lax.verify('opaque-13')).subject).toBe('alice');
  await expect(lax.verify('opaque-14')).rejects.toThrow(/another audience/);
});

test('the endpoint down: 503, logged without the token', async () => {
  as.down = true;
  const logger = new SpyLogger();
  const answer = await initialize('opaque-5', {}, logger);
  expect(answer.status).toBe(503);
  expect(answer.challenge).toBeNull();
  expect(logger.lines.length).toBe(1);
  expect(logger.lines.join('\n')).not.toContain('opaque-5');
});

test("the endpoint refusing our client credentials: 503 (not the token's fault), not 401", async () => {
  answers.set('opaque-6', { active: true, sub: 'alice' });
  const bad = verifier({ clientSecret: 'wrong' });
  const error = await bad.verify('opaque-6').catch((e: unknown) => e);
  expect(error).toBeInstanceOf(TokenVerifierUnavailableError);
  expect((error as Error).message).not.toContain('wrong');
  expect((await initialize('opaque-6', { clientSecret: 'wrong' })).status).toBe(503);
});

test('the endpoint unreachable (closed port): TokenVerifierUnavailableError', async () => {
  const gone = verifier({ endpoint: 'http://127.0.0.1:9/introspect', timeoutMs: 2_000 });
  await expect(gone.verify('opaque-7')).rejects.toThrow(TokenVerifierUnavailableError);
});

test('the cache: a second check of an active token makes no call; with refusalCache off an inactive one is never cached', async () => {
  answers.set('opaque-8', { active: true, sub: 'alice', aud: RESOURCE, exp: inFive() });
  const cached = verifier({ cache: { ttlMs: 60_000 }, refusalCache: false });
  const before = calls;
  await cached.verify('opaque-8');
  await cached.verify('opaque-8');
  expect(calls).toBe(before + 1);
  await expect(cached.verify('opaque-9')).rejects.toThrow(InvalidTokenError);
  await expect(cached.verify('opaque-9')).rejects.toThrow(InvalidTokenError);
  expect(calls).toBe(before + 3);
});

test('the cache holds at most maxEntries (oldest evicted first)', async () => {
  const cached = verifier({ cache: { ttlMs: 600_000, maxEntries: 2 } });
  const before = calls;
  for (const token of ['a1', 'a2', 'a3'])
    answers.set(token, { active: true, sub: token, aud: RESOURCE, exp: inFive() });
  await cached.verify('a1');
  await cached.verify('a2');
  await cached.verify('a3'); // evicts a1
  expect(calls).toBe(before + 3);
  await cached.verify('a3');
  await cached.verify('a2');
  expect(calls).toBe(before + 3);
  await cached.verify('a1');
  expect(calls).toBe(before + 4);
});

test("a cache entry lasts ttlMs, and never past the token's exp", async () => {
  const start = Date.now();
  vi.useFakeTimers({ toFake: ['Date'], now: start });
  try {
    const cache = new IntrospectionCache(60_000, 10);
    const nowSeconds = Math.floor(start / 1000);
    cache.set('short-lived', { subject: 's', scopes: [], expiresAt: nowSeconds + 10 });
    cache.set('long-lived', { subject: 'l', scopes: [], expiresAt: nowSeconds + 3_600 });
    cache.set('already-expired', { subject: 'e', scopes: [], expiresAt: nowSeconds - 1 });
    expect(cache.size).toBe(2);
    expect(cache.get('short-lived')?.subject).toBe('s');
    vi.setSystemTime(start + 11_000);
    expect(cache.get('short-lived')).toBeUndefined();
    expect(cache.get('long-lived')?.subject).toBe('l');
    vi.setSystemTime(start + 61_000);
    expect(cache.get('long-lived')).toBeUndefined();
  } finally {
    vi.useRealTimers();
  }
});

test('review 2: no issuer on the verifier with several authorization servers listed is refused at start; with one, or with an issuer, it starts', async () => {
  const servers = ['https://as-one.test', 'https://as-two.test'];
  await expect(
    serveProtected(staticAuth({ verifier: verifier(), authorizationServers: servers })),
  ).rejects.toThrow('auth.verifier names no issuer while several authorizationServers are listed');
  serving = await serveProtected(
    staticAuth({ verifier: verifier({ issuer: servers[0]! }), authorizationServers: servers }),
  );
  await serving.close({ deadlineMs: 2_000 });
  serving = await serveProtected(staticAuth({ verifier: verifier(), authorizationServers: [servers[0]!] }));
});
