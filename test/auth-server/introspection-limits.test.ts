/**
 * Review fixes (issue 11, item 4): a bogus token sent again and again costs one introspection
 * call per refusal window (also when the copies arrive together), and no verifier response is
 * read past MAX_VERIFIER_RESPONSE_BYTES (503, like an unreachable verifier).
 */
import {
  createServer,
  type IncomingMessage,
  type Server as NodeServer,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, expect, test, vi } from 'vitest';
import {
  MAX_VERIFIER_RESPONSE_BYTES,
  InvalidTokenError,
  TokenVerifierUnavailableError,
  IntrospectionVerifier,
  type IntrospectionVerifierOptions,
  JwtVerifier,
} from 'keel-mcp/server';
import { boundedFetch } from '../../src/server/auth/bounded-fetch.js';
import { useProcessGuard } from '../helpers/guard.js';
import { json, KeyServer, mint, RESOURCE, signingKey } from './support.js';

const guard = useProcessGuard();

let as: KeyServer;
let calls = 0;
const answers = new Map<string, Record<string, unknown>>();
const inFive = () => Math.floor(Date.now() / 1000) + 300;
/**
 * Serves the oversized answers. The client side of a refused answer closes at once; the server
 * side (and an idle connection undici may open meanwhile) is this fixture's to end.
 */
let big: NodeServer;
let bigOrigin = '';
let bigJwks: unknown[] = [];

beforeAll(async () => {
  as = await new KeyServer().start();
  as.routes.set('/introspect', (_req: IncomingMessage, res: ServerResponse, body: string) => {
    calls += 1;
    json(res, answers.get(new URLSearchParams(body).get('token') ?? '') ?? { active: false });
  });
  big = createServer((req, res) => {
    res.setHeader('connection', 'close');
    req.resume();
    req.on('end', () => {
      if (req.url === '/big-jwks') {
        // A valid key set, padded: without the cap it would be used.
        json(res, { keys: bigJwks, padding: 'x'.repeat(MAX_VERIFIER_RESPONSE_BYTES) });
        return;
      }
      if (req.url === '/no-content') {
        res.writeHead(204);
        res.end();
        return;
      }
      if (req.url === '/big-declared') {
        json(res, { active: true, padding: 'x'.repeat(MAX_VERIFIER_RESPONSE_BYTES + 1) });
        return;
      }
      // No content-length: the cap must hold while streaming.
      res.writeHead(200, { 'content-type': 'application/json' });
      for (let i = 0; i < 8; i += 1) res.write('x'.repeat(MAX_VERIFIER_RESPONSE_BYTES / 4));
      res.end();
    });
  });
  await new Promise<void>((resolve) => big.listen(0, '127.0.0.1', resolve));
  bigOrigin = `http://127.0.0.1:${(big.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await as.close();
  await new Promise<void>((resolve) => {
    big.close(() => resolve());
    big.closeAllConnections();
  });
});
function endBigSockets(): void {
  // Node's fetch (undici) opens a spare pooled connection when a response is aborted mid-body;
  // idle, it closes by itself after undici's keep-alive timeout (4 s: longer than the guard's
  // window). The connection of the refused answer itself is closed at once.
  guard.allowOpenHandles();
}
afterEach(() => {
  answers.clear();
  as.down = false;
  vi.useRealTimers();
});

function verifier(options: Partial<IntrospectionVerifierOptions> = {}): IntrospectionVerifier {
  return new IntrospectionVerifier({
    endpoint: `${as.issuer}/introspect`,
    clientId: 'rs',
    clientSecret: 'secret',
    audience: RESOURCE,
    ...options,
  });
}

test('a refused token is remembered (by default): the second check makes no call, the message is the same', async () => {
  const checker = verifier();
  const before = calls;
  await expect(checker.verify('bogus-1')).rejects.toThrow('The token is not active');
  await expect(checker.verify('bogus-1')).rejects.toThrow(new InvalidTokenError('The token is not active'));
  expect(calls).toBe(before + 1);
  // Another token is another check.
  await expect(checker.verify('bogus-2')).rejects.toThrow(InvalidTokenError);
  expect(calls).toBe(before + 2);
});

test('the same bogus token many times at once: one introspection call', async () => {
  const checker = verifier();
  const before = calls;
  const outcomes = await Promise.allSettled(Array.from({ length: 8 }, () => checker.verify('bogus-3')));
  expect(outcomes.every((o) => o.status === 'rejected' && o.reason instanceof InvalidTokenError)).toBe(true);
  expect(calls).toBe(before + 1);
});

test('review 2: a refusal of a token with a past nbf (most real answers carry one) is remembered too', async () => {
  const checker = verifier();
  const nbf = Math.floor(Date.now() / 1000) - 60;
  answers.set('other-audience', {
    active: true,
    sub: 'alice',
    aud: 'https://other.example/mcp',
    nbf,
    exp: inFive(),
  });
  const before = calls;
  for (let i = 0; i < 5; i += 1)
    await expect(checker.verify('other-audience')).rejects.toThrow(InvalidTokenError);
  expect(calls).toBe(before + 1);
});

test('a token not valid yet is refused until its nbf, and checked again from then on', async () => {
  const start = Date.now();
  vi.useFakeTimers({ toFake: ['Date'], now: start });
  const checker = verifier({ refusalCache: { ttlMs: 60_000 } });
  const nbf = Math.floor(start / 1000) + 2;
  answers.set('early', { active: true, sub: 'alice', aud: RESOURCE, nbf, exp: nbf + 300 });
  const before = calls;
  await expect(checker.verify('early')).rejects.toThrow(InvalidTokenError);
  await expect(checker.verify('early')).rejects.toThrow(InvalidTokenError);
  expect(calls).toBe(before + 1);
  vi.setSystemTime(nbf * 1000 + 1);
  expect((await checker.verify('early')).subject).toBe('alice');
  expect(calls).toBe(before + 2);
});

test('a refusal lasts refusalCache.ttlMs, then the token is checked again', async () => {
  const start = Date.now();
  vi.useFakeTimers({ toFake: ['Date'], now: start });
  const checker = verifier({ refusalCache: { ttlMs: 5_000 } });
  const before = calls;
  await expect(checker.verify('bogus-4')).rejects.toThrow(InvalidTokenError);
  vi.setSystemTime(start + 4_000);
  await expect(checker.verify('bogus-4')).rejects.toThrow(InvalidTokenError);
  expect(calls).toBe(before + 1);
  vi.setSystemTime(start + 5_001);
  // Meanwhile the authorization server activated it: the new answer is used.
  answers.set('bogus-4', { active: true, sub: 'alice', aud: RESOURCE, exp: Math.floor(start / 1000) + 300 });
  expect((await checker.verify('bogus-4')).subject).toBe('alice');
  expect(calls).toBe(before + 2);
});

test('an endpoint failure (503) is never remembered: the next check asks again', async () => {
  const checker = verifier();
  answers.set('good-1', { active: true, sub: 'alice', aud: RESOURCE, exp: inFive() });
  as.down = true;
  await expect(checker.verify('good-1')).rejects.toThrow(TokenVerifierUnavailableError);
  as.down = false;
  expect((await checker.verify('good-1')).subject).toBe('alice');
});

test('refusalCache: false asks every time', async () => {
  const checker = verifier({ refusalCache: false });
  const before = calls;
  await expect(checker.verify('bogus-5')).rejects.toThrow(InvalidTokenError);
  await expect(checker.verify('bogus-5')).rejects.toThrow(InvalidTokenError);
  expect(calls).toBe(before + 2);
});

test.each(['/big-declared', '/big-chunked'])(
  'an introspection answer past the byte cap (%s): TokenVerifierUnavailableError naming the endpoint',
  async (path) => {
    const error = await verifier({ endpoint: `${bigOrigin}${path}` })
      .verify('opaque-secret-token')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TokenVerifierUnavailableError);
    expect((error as Error).message).toBe(
      `${bigOrigin}${path} answered more than ${MAX_VERIFIER_RESPONSE_BYTES} bytes`,
    );
    expect((error as Error).message).not.toContain('opaque-secret-token');
    endBigSockets();
  },
);

test('issue 24 point 6: an introspection endpoint answering 204 (no body) is unavailable (503), not a TypeError', async () => {
  const error = await verifier({ endpoint: `${bigOrigin}/no-content` })
    .verify('opaque-secret-token')
    .catch((e: unknown) => e);
  expect(error).toBeInstanceOf(TokenVerifierUnavailableError);
  expect((error as Error).message).toBe('The introspection endpoint answered 204');
  endBigSockets();
});

test('boundedFetch: a body within the cap is returned whole; one byte past it is refused', async () => {
  const url = new URL(`${bigOrigin}/big-chunked`);
  const whole = await boundedFetch(url, {}, 5_000, undefined, 2 * MAX_VERIFIER_RESPONSE_BYTES);
  expect((await whole.text()).length).toBe(2 * MAX_VERIFIER_RESPONSE_BYTES);
  await expect(boundedFetch(url, {}, 5_000, undefined, 2 * MAX_VERIFIER_RESPONSE_BYTES - 1)).rejects.toThrow(
    /answered more than/,
  );
  endBigSockets();
});

test('a JWKS past the byte cap: the JWT verifier is unavailable (503), not a bad token', async () => {
  const key = await signingKey('k1');
  bigJwks = [key.publicJwk];
  const jwt = new JwtVerifier({ issuer: as.issuer, audience: RESOURCE, jwksUri: `${bigOrigin}/big-jwks` });
  const error = await jwt.verify(await mint(as.issuer, key)).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(TokenVerifierUnavailableError);
  endBigSockets();
});
