import { describe, expect, it, vi } from 'vitest';
import { headlessRedirect } from 'keel-mcp/client';
import { AuthorizationError } from 'keel-mcp/core';
import { ATTEMPT_WINDOW_MS } from '../../src/client/auth/index.js';
import { useProcessGuard } from '../helpers/guard.js';
import {
  closeMocksAfterEach,
  mock,
  provider,
  REDIRECT_URI,
  refuse,
  rejection,
} from './support/provider-kit.js';

useProcessGuard();
closeMocksAfterEach();

describe('authorization code flow', () => {
  it('discovers, registers, authorizes with PKCE S256, state and resource, and hands out the token', async () => {
    const m = await mock();
    const p = provider();
    const signal = new AbortController().signal;
    expect(await p.authorization(m.serverUrl, signal)).toBeUndefined();
    expect(await refuse(p, m, signal)).toBe(true);
    const header = await p.authorization(m.serverUrl, signal);
    expect(header).toMatch(/^Bearer at-/);
    const issued = m.tokens.get(header!.slice('Bearer '.length));
    expect(issued?.resource).toBe(m.serverUrl.href);

    const [register] = m.registerRequests();
    expect(JSON.parse(register!.body)).toMatchObject({
      redirect_uris: [REDIRECT_URI],
      application_type: 'native',
      grant_types: ['authorization_code', 'refresh_token'],
      client_name: 'keel-test',
    });
    const [authorize] = m.authorizeRequests();
    expect(authorize!.query.get('code_challenge_method')).toBe('S256');
    expect(authorize!.query.get('state')).toMatch(/.{20,}/);
    expect(authorize!.query.get('resource')).toBe(m.serverUrl.href);
    expect(authorize!.query.get('scope')).toBeNull();
    const [token] = m.tokenRequests();
    expect(token!.form.get('resource')).toBe(m.serverUrl.href);
    expect(token!.form.get('grant_type')).toBe('authorization_code');
  });

  it('sends the resource exactly as the metadata publishes it (trailing slash kept)', async () => {
    const m = await mock();
    m.config.prmResource = `${m.issuer}/mcp/`;
    await refuse(provider(), m);
    expect(m.authorizeRequests()[0]!.query.get('resource')).toBe(`${m.issuer}/mcp/`);
    expect(m.tokenRequests()[0]!.form.get('resource')).toBe(`${m.issuer}/mcp/`);
  });

  it.each([[['plain']], [null]])(
    'refuses an authorization server without S256 (%j) before any authorization request',
    async (methods) => {
      const m = await mock({ metadata: { code_challenge_methods_supported: methods } });
      const error = await rejection(refuse(provider(), m));
      expect(error).toBeInstanceOf(AuthorizationError);
      expect((error as AuthorizationError).reason).toBe('pkce-unsupported');
      expect(m.authorizeRequests()).toHaveLength(0);
    },
  );

  it('rejects a callback whose state does not match, before the token endpoint', async () => {
    const m = await mock({ badState: true });
    const error = (await rejection(refuse(provider(), m))) as AuthorizationError;
    expect(error.reason).toBe('invalid-callback');
    expect(error.message).toContain('state');
    expect(m.tokenRequests()).toHaveLength(0);
  });
});

describe('RFC 9207 iss in the authorization response', () => {
  const cases = [
    { advertised: true, iss: 'correct', ok: true },
    { advertised: true, iss: 'omit', ok: false },
    { advertised: true, iss: 'wrong', ok: false },
    { advertised: true, iss: 'normalized', ok: false },
    { advertised: false, iss: 'omit', ok: true },
    { advertised: false, iss: 'wrong', ok: false },
    { advertised: false, iss: 'correct', ok: true },
  ] as const;
  it.each(cases)('advertised=$advertised iss=$iss → accepted=$ok', async ({ advertised, iss, ok }) => {
    const m = await mock({
      iss,
      metadata: { authorization_response_iss_parameter_supported: advertised ? true : null },
    });
    const outcome = refuse(provider(), m);
    if (ok) {
      expect(await outcome).toBe(true);
      expect(m.tokenRequests()).toHaveLength(1);
    } else {
      const error = (await rejection(outcome)) as AuthorizationError;
      expect(error.reason).toBe('invalid-callback');
      expect(m.tokenRequests()).toHaveLength(0);
    }
  });
});

describe('step-up on insufficient_scope', () => {
  it('re-authorizes with the union of the scopes, at most three times for one request, then a typed error', async () => {
    const m = await mock();
    const p = provider();
    const signal = new AbortController().signal;
    expect(await refuse(p, m, signal, 401, ', scope="mcp:basic"')).toBe(true);
    expect(await refuse(p, m, signal, 403, ', error="insufficient_scope", scope="mcp:write"')).toBe(true);
    expect(await refuse(p, m, signal, 403, ', error="insufficient_scope", scope="mcp:write"')).toBe(true);
    const error = (await rejection(
      refuse(p, m, signal, 403, ', error="insufficient_scope", scope="mcp:write"'),
    )) as AuthorizationError;
    expect(error.reason).toBe('step-up-limit');
    const scopes = m.authorizeRequests().map((r) => r.query.get('scope'));
    expect(scopes).toEqual(['mcp:basic', 'mcp:basic mcp:write', 'mcp:basic mcp:write']);
  });

  it('a 403 that is not insufficient_scope is given up on without any OAuth request', async () => {
    const m = await mock();
    expect(await refuse(provider(), m, undefined, 403, ', error="invalid_token"')).toBe(false);
    expect(m.stub.requests).toHaveLength(0);
  });

  it('flows further apart than the window start a new count for the same request (a long-lived stream)', async () => {
    const m = await mock();
    let now = 5_000_000;
    const p = provider({ now: () => now });
    const signal = new AbortController().signal;
    const stepUp = () => refuse(p, m, signal, 403, ', error="insufficient_scope", scope="a"');
    for (let i = 0; i < 3; i++) expect(await stepUp()).toBe(true);
    now += ATTEMPT_WINDOW_MS - 1;
    expect(((await rejection(stepUp())) as AuthorizationError).reason).toBe('step-up-limit');
    now += 1;
    expect(await stepUp()).toBe(true);
    expect(m.authorizeRequests()).toHaveLength(4);
  });

  it('another request gets its own three attempts', async () => {
    const m = await mock();
    const p = provider();
    const first = new AbortController().signal;
    for (let i = 0; i < 3; i++) await refuse(p, m, first, 403, ', error="insufficient_scope", scope="a"');
    expect(
      await refuse(p, m, new AbortController().signal, 403, ', error="insufficient_scope", scope="a"'),
    ).toBe(true);
    expect(m.authorizeRequests()).toHaveLength(4);
  });
});

describe('single flight', () => {
  it('N requests refused together share one authorization', async () => {
    const m = await mock();
    const p = provider();
    const signals = Array.from({ length: 6 }, () => new AbortController().signal);
    const results = await Promise.all(signals.map((s) => refuse(p, m, s)));
    expect(results).toEqual(signals.map(() => true));
    expect(m.registerRequests()).toHaveLength(1);
    expect(m.authorizeRequests()).toHaveLength(1);
    expect(m.tokenRequests()).toHaveLength(1);
    const headers = await Promise.all(signals.map((s) => p.authorization(m.serverUrl, s)));
    expect(new Set(headers).size).toBe(1);
  });

  it('a failed flow fails every waiting request with the same typed error', async () => {
    const m = await mock({ badState: true });
    const p = provider();
    const errors = await Promise.all(Array.from({ length: 4 }, () => rejection(refuse(p, m))));
    expect(errors[0]).toBeInstanceOf(AuthorizationError);
    for (const e of errors) expect(e).toBe(errors[0]);
    expect(m.authorizeRequests()).toHaveLength(1);
  });

  it('a request aborted while waiting fails with aborted; the flow goes on for the others', async () => {
    const m = await mock();
    const p = provider();
    const controller = new AbortController();
    const other = refuse(p, m);
    const waiting = refuse(p, m, controller.signal);
    controller.abort();
    expect(((await rejection(waiting)) as AuthorizationError).reason).toBe('aborted');
    expect(await other).toBe(true);
  });

  it('the request that started the flow aborts: the flow goes on for the one still waiting', async () => {
    const m = await mock();
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const redirectSignals: AbortSignal[] = [];
    const p = provider({
      redirect: async (url, signal) => {
        redirectSignals.push(signal);
        await gate;
        return headlessRedirect({ redirectUri: REDIRECT_URI })(url, signal);
      },
    });
    const starter = new AbortController();
    const first = refuse(p, m, starter.signal);
    await vi.waitFor(() => expect(redirectSignals).toHaveLength(1), { timeout: 5_000 });
    // Another request, sent before the flow started, is refused now and joins it.
    const second = p.challenge(
      { url: m.serverUrl, status: 401, wwwAuthenticate: `Bearer resource_metadata="${m.prmUrl}"` },
      new AbortController().signal,
    );
    starter.abort();
    expect(((await rejection(first)) as AuthorizationError).reason).toBe('aborted');
    release();
    expect(await second).toBe(true);
    expect(redirectSignals[0]!.aborted).toBe(false);
    expect(m.authorizeRequests()).toHaveLength(1);
    expect(m.tokenRequests()).toHaveLength(1);
  });

  it('every waiting request aborts: the flow itself is aborted and never reaches the token endpoint', async () => {
    const m = await mock();
    const redirectSignals: AbortSignal[] = [];
    const p = provider({
      redirect: (_url, signal) => {
        redirectSignals.push(signal);
        return new Promise<URL>((_resolve, reject) =>
          signal.addEventListener('abort', () => reject(new Error('user agent closed')), { once: true }),
        );
      },
    });
    const a = new AbortController();
    const b = new AbortController();
    const first = refuse(p, m, a.signal);
    await vi.waitFor(() => expect(redirectSignals).toHaveLength(1), { timeout: 5_000 });
    const second = refuse(p, m, b.signal);
    a.abort();
    b.abort();
    for (const outcome of [first, second])
      expect(((await rejection(outcome)) as AuthorizationError).reason).toBe('aborted');
    expect(redirectSignals[0]!.aborted).toBe(true);
    expect(m.tokenRequests()).toHaveLength(0);
  });

  it('a request refused after every waiter aborted starts its own flow, not the abandoned one', async () => {
    const m = await mock();
    const redirectSignals: AbortSignal[] = [];
    let windDown: (() => void) | undefined;
    const p = provider({
      redirect: (url, signal) => {
        redirectSignals.push(signal);
        if (redirectSignals.length > 1) return headlessRedirect({ redirectUri: REDIRECT_URI })(url, signal);
        // The first user-agent step is slow to wind down after its abort (closing a listener):
        // it settles only when the test says so, after the second request has come in.
        return new Promise<URL>((_resolve, reject) =>
          signal.addEventListener('abort', () => (windDown = () => reject(new Error('closed'))), {
            once: true,
          }),
        );
      },
    });
    const a = new AbortController();
    const first = refuse(p, m, a.signal);
    await vi.waitFor(() => expect(redirectSignals).toHaveLength(1), { timeout: 5_000 });
    a.abort();
    expect(((await rejection(first)) as AuthorizationError).reason).toBe('aborted');
    // The abandoned flow has not settled yet; a request that never aborted comes in now.
    const second = refuse(p, m);
    await vi.waitFor(() => expect(redirectSignals).toHaveLength(2), { timeout: 5_000 });
    windDown!();
    expect(await second).toBe(true);
    expect(m.tokenRequests()).toHaveLength(1);
  });
});
