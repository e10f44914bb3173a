import { describe, expect, it } from 'vitest';
import { MAX_OAUTH_RESPONSE_BYTES, MemoryTokenStore } from 'keel-mcp/client';
import { AuthorizationError } from 'keel-mcp/core';
import { ATTEMPT_WINDOW_MS, EXPIRY_MARGIN_MS } from '../../src/client/auth/index.js';
import { useProcessGuard } from '../helpers/guard.js';
import { CLIENT_SECRET } from './support/mock-oauth.js';
import { closeMocksAfterEach, mock, provider, refuse, rejection } from './support/provider-kit.js';

useProcessGuard();
closeMocksAfterEach();

const bearer = (header: string | undefined): string => header!.slice('Bearer '.length);

describe('expiry and refresh', () => {
  it('uses the token until it expires, then refreshes; a rotated refresh token is never sent again', async () => {
    const m = await mock({ expiresIn: 3600 });
    let now = 1_000_000;
    const p = provider({ now: () => now });
    const signal = new AbortController().signal;
    await refuse(p, m, signal);
    const first = bearer(await p.authorization(m.serverUrl, signal));
    now += 3600_000 - EXPIRY_MARGIN_MS - 1;
    expect(bearer(await p.authorization(m.serverUrl, signal))).toBe(first);
    expect(m.tokenRequests()).toHaveLength(1);

    now += 2;
    const second = bearer(await p.authorization(m.serverUrl, signal));
    expect(second).not.toBe(first);
    now += 3600_000;
    const third = bearer(await p.authorization(m.serverUrl, signal));
    expect(third).not.toBe(second);

    const grants = m.tokenRequests().map((r) => r.form.get('grant_type'));
    expect(grants).toEqual(['authorization_code', 'refresh_token', 'refresh_token']);
    const presented = m
      .tokenRequests()
      .slice(1)
      .map((r) => r.form.get('refresh_token'));
    expect(new Set(presented).size).toBe(2);
    expect(m.reusedRefreshTokens).toEqual([]);
    expect(m.tokenRequests()[1]!.form.get('resource')).toBe(m.serverUrl.href);
    expect(m.authorizeRequests()).toHaveLength(1);
  });

  it('a token living 30 s or less is not expired on arrival: renewed after half its life', async () => {
    const m = await mock({ expiresIn: 20 });
    let now = 1_000_000;
    const p = provider({ now: () => now });
    const signal = new AbortController().signal;
    await refuse(p, m, signal);
    const first = bearer(await p.authorization(m.serverUrl, signal));
    now += 9_999;
    expect(bearer(await p.authorization(m.serverUrl, signal))).toBe(first);
    expect(m.tokenRequests()).toHaveLength(1);
    now += 1;
    expect(bearer(await p.authorization(m.serverUrl, signal))).not.toBe(first);
    expect(m.tokenRequests().map((r) => r.form.get('grant_type'))).toEqual([
      'authorization_code',
      'refresh_token',
    ]);
  });

  it('on 401 with a token it refreshes first, without a new authorization', async () => {
    const m = await mock();
    const p = provider();
    await refuse(p, m);
    expect(await refuse(p, m)).toBe(true);
    expect(m.tokenRequests().map((r) => r.form.get('grant_type'))).toEqual([
      'authorization_code',
      'refresh_token',
    ]);
    expect(m.authorizeRequests()).toHaveLength(1);
  });

  it('one request gets one refresh per window: refused again, it runs a full authorization', async () => {
    const m = await mock();
    let now = 1_000_000;
    const p = provider({ now: () => now });
    const signal = new AbortController().signal;
    await refuse(p, m, signal);
    await refuse(p, m, signal); // refresh
    await refuse(p, m, signal); // refused again: a flow, not a second refresh
    now += ATTEMPT_WINDOW_MS;
    await refuse(p, m, signal); // much later (a long-lived stream): a refresh again
    expect(m.tokenRequests().map((r) => r.form.get('grant_type'))).toEqual([
      'authorization_code',
      'refresh_token',
      'authorization_code',
      'refresh_token',
    ]);
  });

  it('a refused refresh leads to a full authorization', async () => {
    const m = await mock();
    const p = provider();
    await refuse(p, m);
    m.refreshTokens.clear();
    expect(await refuse(p, m)).toBe(true);
    expect(m.authorizeRequests()).toHaveLength(2);
    expect(m.tokenRequests().map((r) => r.form.get('grant_type'))).toEqual([
      'authorization_code',
      'refresh_token',
      'authorization_code',
    ]);
  });

  it('signOut forgets the tokens (memory and store) and keeps the registration', async () => {
    const m = await mock();
    const store = new MemoryTokenStore();
    const p = provider({ store });
    const signal = new AbortController().signal;
    await refuse(p, m, signal);
    await p.signOut(m.serverUrl);
    expect(await p.authorization(m.serverUrl, signal)).toBeUndefined();
    expect(await store.get(`oauth:tokens ${m.issuer} ${m.serverUrl.href}`)).toBeUndefined();
    expect(await store.get(`oauth:registration ${m.issuer}`)).toBeDefined();
  });

  it('tokens in the store are used after discovery, without any flow', async () => {
    const m = await mock();
    const store = new MemoryTokenStore();
    await refuse(provider({ store }), m);
    const later = provider({ store });
    const signal = new AbortController().signal;
    expect(await refuse(later, m, signal)).toBe(true);
    expect(await later.authorization(m.serverUrl, signal)).toMatch(/^Bearer at-/);
    expect(m.tokenRequests()).toHaveLength(1);
    expect(m.registerRequests()).toHaveLength(1);
  });
});

describe('token endpoint client authentication', () => {
  it.each([
    ['client_secret_basic', true, false],
    ['client_secret_post', false, true],
    ['none', false, false],
  ] as const)('%s', async (method, basic, post) => {
    const m = await mock({ registration: { token_endpoint_auth_method: method } });
    expect(await refuse(provider(), m)).toBe(true);
    const [token] = m.tokenRequests();
    expect(token!.headers.authorization?.startsWith('Basic ') ?? false).toBe(basic);
    expect(token!.form.has('client_secret')).toBe(post);
  });

  it('pre-registered credentials without a method: client_secret_post when that is all the server lists', async () => {
    const m = await mock({ metadata: { token_endpoint_auth_methods_supported: ['client_secret_post'] } });
    const p = provider({ credentials: () => ({ client_id: 'pre', client_secret: 'pre-secret' }) });
    await rejection(refuse(p, m)); // the mock does not know `pre`: invalid_client
    const [token] = m.tokenRequests();
    expect(token!.form.get('client_secret')).toBe('pre-secret');
    expect(token!.headers.authorization).toBeUndefined();
    expect(m.registerRequests()).toHaveLength(0);
  });
});

describe('no secret in error messages', () => {
  it('token, callback and refresh failures name endpoints and checks, never codes, tokens or secrets', async () => {
    const m = await mock({ registration: { token_endpoint_auth_method: 'client_secret_basic' } });
    const messages: string[] = [];
    const collect = (e: Error): void => {
      let error: unknown = e;
      while (error instanceof Error) {
        messages.push(`${error.name}: ${error.message}`, String(error));
        error = error.cause;
      }
    };
    // The token endpoint refuses the code.
    m.stub.routes.set('POST /token', () => ({
      status: 400,
      json: { error: 'invalid_grant', error_description: 'nope' },
    }));
    collect(await rejection(refuse(provider(), m)));
    // Callback with a wrong iss (the callback URL holds the code).
    m.config.iss = 'wrong';
    collect(await rejection(refuse(provider(), m)));
    const codes = m.authorizeRequests().length;
    expect(codes).toBe(2);
    const secrets = [CLIENT_SECRET, 'code-', 'at-', 'rt-'];
    const verifiers = m.authorizeRequests().map((r) => r.query.get('code_challenge')!);
    const states = m.authorizeRequests().map((r) => r.query.get('state')!);
    for (const message of messages) {
      for (const secret of [...secrets, ...verifiers, ...states]) expect(message).not.toContain(secret);
    }
    expect(messages.join('\n')).toMatch(/invalid_grant/);
    expect(messages.join('\n')).toMatch(/iss/);
  });

  it('an error from a flow is an AuthorizationError with a reason', async () => {
    const m = await mock({ iss: 'wrong' });
    const error = await rejection(refuse(provider(), m));
    expect(error).toBeInstanceOf(AuthorizationError);
    expect(error.name).toBe('AuthorizationError');
  });
});

describe('client_secret_basic encoding', () => {
  it('a secret with a server that lists neither secret method goes as Basic (RFC 6749 §2.3.1)', async () => {
    const m = await mock({ metadata: { token_endpoint_auth_methods_supported: ['none'] } });
    const p = provider({ credentials: () => ({ client_id: 'issued', client_secret: 'pw' }) });
    await rejection(refuse(p, m)); // the mock does not know the client
    expect(m.tokenRequests()[0]!.headers.authorization).toBe(`Basic ${btoa('issued:pw')}`);
  });

  it("form-encodes both parts (RFC 6749 §2.3.1): `-._*` stay, space is `+`, `~!'()` and `:` are escaped", async () => {
    const m = await mock({ metadata: { token_endpoint_auth_methods_supported: ['client_secret_basic'] } });
    const p = provider({
      credentials: () => ({ client_id: 'pre-registered_client.1~*', client_secret: "a:b c!'()" }),
    });
    await rejection(refuse(p, m)); // the mock does not know the client
    const header = m.tokenRequests()[0]!.headers.authorization!;
    expect(Buffer.from(header.slice('Basic '.length), 'base64').toString()).toBe(
      'pre-registered_client.1%7E*:a%3Ab+c%21%27%28%29',
    );
  });
});

describe('redirects on registration and token requests are not followed', () => {
  it.each(['POST /register', 'POST /token'])(
    '%s answering 307 to another host is a redirect error',
    async (route) => {
      const m = await mock();
      const elsewhere = await mock();
      m.stub.routes.set(route, () => ({
        status: 307,
        headers: { location: `${elsewhere.issuer}${route.slice(5)}` },
      }));
      const error = (await rejection(refuse(provider(), m))) as AuthorizationError;
      expect(error).toBeInstanceOf(AuthorizationError);
      expect(error.reason).toBe('redirect');
      expect(elsewhere.stub.requests).toHaveLength(0);
    },
  );
});

describe('what the client refuses to work with', () => {
  it('a token type other than Bearer is a token error', async () => {
    const m = await mock();
    const issue = m.stub.routes.get('POST /token')!;
    m.stub.routes.set('POST /token', async (req) => {
      const answer = await issue(req);
      return { ...answer, json: { ...(answer.json as object), token_type: 'DPoP' } };
    });
    const error = (await rejection(refuse(provider(), m))) as AuthorizationError;
    expect(error.reason).toBe('token');
    expect(error.message).toContain('dpop');
  });

  it('a plain http redirect URI off loopback is refused at construction', () => {
    expect(() => provider({ clientMetadata: { redirect_uris: ['http://app.example.com/cb'] } })).toThrow(
      AuthorizationError,
    );
    expect(() => provider({ clientMetadata: { redirect_uris: ['com.example.app:/cb'] } })).not.toThrow();
    expect(() =>
      provider({ clientMetadata: { redirect_uris: ['https://app.example.com/cb'] } }),
    ).not.toThrow();
  });
});

describe('plain http endpoints off loopback', () => {
  it.each(['authorization_endpoint', 'token_endpoint', 'registration_endpoint'])(
    'an http %s on another host is insecure-url, and nothing is sent there',
    async (field) => {
      const m = await mock({ metadata: { [field]: `http://auth.example.com/${field}` } });
      const seen: string[] = [];
      const p = provider({
        fetch: (input, init) => {
          seen.push(String(input));
          return fetch(input, init);
        },
      });
      const error = (await rejection(refuse(p, m))) as AuthorizationError;
      expect(error.reason).toBe('insecure-url');
      expect(seen.filter((u) => u.includes('auth.example.com'))).toEqual([]);
    },
  );
});

describe('oversized responses', () => {
  it.each(['/.well-known/oauth-authorization-server', 'POST /token', 'POST /register'])(
    '%s answering more than MAX_OAUTH_RESPONSE_BYTES is too-large',
    async (route) => {
      const m = await mock();
      m.stub.routes.set(route, () => ({
        status: route.startsWith('POST /register') ? 201 : 200,
        headers: { 'content-type': 'application/json' },
        text: `{"x":"${'a'.repeat(MAX_OAUTH_RESPONSE_BYTES)}"}`,
      }));
      const error = (await rejection(refuse(provider(), m))) as AuthorizationError;
      expect(error.reason).toBe('too-large');
      expect(error.message).toContain(m.issuer);
    },
  );
});
