/**
 * When a machine grant asks for a token: once, reused until it expires; exactly one new one per
 * refusal, never a loop; step-up with the union of scopes, at most three times; concurrent
 * refusals share one request.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { clientCredentialsAuth } from 'keel-mcp/client';
import { AuthorizationError } from 'keel-mcp/core';
import { useProcessGuard } from '../helpers/guard.js';
import { refusal, resourceAt, startMockServer, tokenAnswer, type MockServer } from './mock-as.js';

useProcessGuard();

let as: MockServer | undefined;
afterEach(async () => {
  await as?.close();
  as = undefined;
});

const signal = new AbortController().signal;
const url = new URL('https://mcp.example.com/mcp');

/** A token server that numbers its tokens, and a provider using it. */
async function setup(expiresIn: number | undefined = 3600) {
  let issued = 0;
  as = await startMockServer(() => {
    issued += 1;
    return tokenAnswer(
      `tok-${issued}`,
      expiresIn === undefined ? { expires_in: undefined } : { expires_in: expiresIn },
    );
  });
  let discoveries = 0;
  const target = resourceAt(as);
  const auth = clientCredentialsAuth({
    issuer: target.authorizationServer.issuer,
    credentials: { clientId: 'svc', clientSecret: 'secret' },
    discover: async () => {
      discoveries += 1;
      return target;
    },
  });
  return { auth, server: as, discoveries: () => discoveries };
}

describe('token reuse', () => {
  test('one token serves every request until it expires; discovery runs once', async () => {
    const { auth, server, discoveries } = await setup(3600);
    await auth.challenge(refusal(401), signal);
    for (let i = 0; i < 5; i++) expect(await auth.authorization(url, signal)).toBe('Bearer tok-1');
    expect(server.requests).toHaveLength(1);
    expect(discoveries()).toBe(1);
  });

  test('a token without expires_in is kept until the server refuses it', async () => {
    const { auth, server } = await setup(undefined);
    await auth.challenge(refusal(401), signal);
    for (let i = 0; i < 3; i++) expect(await auth.authorization(url, signal)).toBe('Bearer tok-1');
    expect(server.requests).toHaveLength(1);
  });

  test('an expired token is replaced before it is sent, with the same scope', async () => {
    // expires_in 0: expired on arrival.
    const { auth, server } = await setup(0);
    await auth.challenge(refusal(401, 'Bearer scope="x"'), signal);
    expect(await auth.authorization(url, signal)).toBe('Bearer tok-2');
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]!.form.scope).toBe('x');
  });

  test('a short-lived token is still reused (renewed halfway through its life, not on every use)', async () => {
    const { auth, server } = await setup(20);
    await auth.challenge(refusal(401), signal);
    for (let i = 0; i < 3; i++) expect(await auth.authorization(url, signal)).toBe('Bearer tok-1');
    expect(server.requests).toHaveLength(1);
  });
});

describe('401', () => {
  test('a 401 for a token in use gets exactly one new token request', async () => {
    const { auth, server } = await setup();
    await auth.challenge(refusal(401), signal);
    await auth.authorization(url, signal);
    await auth.authorization(url, signal);
    expect(await auth.challenge(refusal(401, 'Bearer error="invalid_token"'), signal)).toBe(true);
    expect(server.requests).toHaveLength(2);
    expect(await auth.authorization(url, signal)).toBe('Bearer tok-2');
  });

  test('a 401 for the token just issued for a 401 gives up, without a new request', async () => {
    const { auth, server } = await setup();
    await auth.challenge(refusal(401), signal);
    expect(await auth.authorization(url, signal)).toBe('Bearer tok-1');
    expect(await auth.challenge(refusal(401, 'Bearer error="invalid_token"'), signal)).toBe(false);
    expect(server.requests).toHaveLength(1);
    // The refused token is dropped: the next request goes without one and starts over.
    expect(await auth.authorization(url, signal)).toBeUndefined();
  });

  test('concurrent refusals share one token request', async () => {
    const { auth, server } = await setup();
    const results = await Promise.all([1, 2, 3].map(() => auth.challenge(refusal(401), signal)));
    expect(results).toEqual([true, true, true]);
    expect(server.requests).toHaveLength(1);
  });
});

describe('403 insufficient_scope', () => {
  test('asks for the union of the scopes so far and the challenged ones', async () => {
    const { auth, server } = await setup();
    await auth.challenge(refusal(401, 'Bearer scope="mcp:basic"'), signal);
    await auth.authorization(url, signal);
    await auth.challenge(
      refusal(403, 'Bearer error="insufficient_scope", scope="mcp:basic mcp:write"'),
      signal,
    );
    expect(server.requests.map((r) => r.form.scope)).toEqual(['mcp:basic', 'mcp:basic mcp:write']);
    expect(await auth.authorization(url, signal)).toBe('Bearer tok-2');
  });

  test('gives up after three step-ups with a typed error', async () => {
    const { auth, server } = await setup();
    await auth.challenge(refusal(401), signal);
    const challenge = refusal(403, 'Bearer error="insufficient_scope", scope="admin"');
    for (let i = 0; i < 3; i++) {
      await auth.authorization(url, signal);
      expect(await auth.challenge(challenge, signal)).toBe(true);
    }
    await expect(auth.challenge(challenge, signal)).rejects.toMatchObject({
      name: 'AuthorizationError',
      reason: 'step-up-limit',
    });
    expect(server.requests).toHaveLength(4);
  });

  test("step-ups count per request: other requests' step-ups do not use up its attempts", async () => {
    const { auth, server } = await setup();
    await auth.challenge(refusal(401), signal);
    const challenge = refusal(403, 'Bearer error="insufficient_scope", scope="admin"');
    // Four different requests, one step-up each, over the provider's life: none is a loop.
    for (let i = 0; i < 4; i++) {
      const request = new AbortController().signal;
      await auth.authorization(url, request);
      expect(await auth.challenge(challenge, request)).toBe(true);
    }
    expect(server.requests).toHaveLength(5);
  });

  test('a 403 that is not insufficient_scope is not retried', async () => {
    const { auth, server } = await setup();
    await auth.challenge(refusal(401), signal);
    expect(await auth.challenge(refusal(403, 'Bearer error="forbidden"'), signal)).toBe(false);
    expect(await auth.challenge(refusal(403, undefined), signal)).toBe(false);
    expect(server.requests).toHaveLength(1);
  });
});

describe('abort', () => {
  test('a caller that aborts stops waiting; the shared token request still serves the others', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    as = await startMockServer(async () => {
      await held;
      return tokenAnswer('tok-1');
    });
    const target = resourceAt(as);
    const auth = clientCredentialsAuth({
      issuer: target.authorizationServer.issuer,
      credentials: { clientId: 'svc', clientSecret: 'secret' },
      discover: async () => target,
    });
    // The caller that starts the token request is the one that aborts.
    const controller = new AbortController();
    const second = auth.challenge(refusal(401), controller.signal);
    const first = auth.challenge(refusal(401), signal);
    // Wait (bounded) until the token request reached the server.
    for (let turn = 0; turn < 10_000 && as.requests.length === 0; turn++) {
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    expect(as.requests).toHaveLength(1);
    controller.abort(new Error('caller gave up'));
    // The one single flight of the OAuth client: an aborted waiter gets the typed `aborted` error,
    // with its signal's reason as the cause.
    const aborted = await second.then(
      () => undefined,
      (e: unknown) => e as AuthorizationError,
    );
    expect(aborted).toMatchObject({ name: 'AuthorizationError', reason: 'aborted' });
    expect((aborted!.cause as Error).message).toBe('caller gave up');
    release();
    expect(await first).toBe(true);
    expect(await auth.authorization(url, signal)).toBe('Bearer tok-1');
    expect(as.requests).toHaveLength(1);
  });
});

describe('bounded shared work', () => {
  test('discovery that never answers fails its requests after flowTimeoutMs, and the next request starts afresh', async () => {
    let calls = 0;
    let answer = false;
    as = await startMockServer(() => tokenAnswer('tok-1'));
    const target = resourceAt(as);
    const auth = clientCredentialsAuth({
      issuer: target.authorizationServer.issuer,
      credentials: { clientId: 'svc', clientSecret: 'secret' },
      flowTimeoutMs: 50,
      // The first discovery hangs and ignores its signal (a metadata server that never answers).
      discover: () => {
        calls += 1;
        return answer ? Promise.resolve(target) : new Promise<never>(() => undefined);
      },
    });
    await expect(auth.challenge(refusal(401), signal)).rejects.toMatchObject({
      name: 'AuthorizationError',
      reason: 'token',
    });
    // Not pinned behind the dead step: a later request goes on at once, without a token...
    expect(await auth.authorization(url, signal)).toBeUndefined();
    // ...and its refusal runs a new step.
    answer = true;
    expect(await auth.challenge(refusal(401), signal)).toBe(true);
    expect(await auth.authorization(url, signal)).toBe('Bearer tok-1');
    expect(calls).toBe(2);
  });
});
