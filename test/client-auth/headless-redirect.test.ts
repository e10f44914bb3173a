import { afterEach, describe, expect, it } from 'vitest';
import { headlessRedirect } from 'keel-mcp/client';
import { AuthorizationError } from 'keel-mcp/core';
import { useProcessGuard } from '../helpers/guard.js';
import { startHttpStub, type HttpStub } from './support/http-stub.js';
import { closeMocksAfterEach, mock, provider, refuse, rejection } from './support/provider-kit.js';

useProcessGuard();
closeMocksAfterEach();

let stub: HttpStub | undefined;
afterEach(async () => {
  await stub?.close();
  stub = undefined;
});

const REDIRECT = 'http://127.0.0.1:8976/callback';

/** The outcome (URL or error) of the headless step against an authorization endpoint answering `answer`. */
async function authorizeWith(
  answer: () => { status: number; headers?: Record<string, string> },
): Promise<URL | Error> {
  stub = await startHttpStub({ '/authorize': answer });
  const step = headlessRedirect({ redirectUri: REDIRECT });
  return step(new URL(`${stub.origin}/authorize?x=1`), new AbortController().signal).catch(
    (e: unknown) => e as Error,
  );
}

describe('headlessRedirect', () => {
  it('returns the Location the authorization server redirects to', async () => {
    const url = await authorizeWith(() => ({
      status: 302,
      headers: { location: `${REDIRECT}?code=abc&state=s` },
    }));
    expect((url as URL).href).toBe(`${REDIRECT}?code=abc&state=s`);
  });

  it('an answer without a redirect (a login page, an error status) is redirect-failed', async () => {
    for (const status of [200, 400, 500]) {
      const error = (await authorizeWith(() => ({ status }))) as AuthorizationError;
      expect(error).toBeInstanceOf(AuthorizationError);
      expect(error.reason).toBe('redirect-failed');
      expect(error.message).toContain(String(status));
      await stub?.close();
      stub = undefined;
    }
  });

  it('a redirect anywhere but the registered redirect URI is refused, and the code is not in the message', async () => {
    const error = (await authorizeWith(() => ({
      status: 302,
      headers: { location: 'https://evil.example.com/callback?code=secret-code' },
    }))) as AuthorizationError;
    expect(error.reason).toBe('redirect-failed');
    expect(error.message).toContain('https://evil.example.com/callback');
    expect(error.message).not.toContain('secret-code');
  });

  it('an error response in the redirect fails the flow with invalid-callback, before the token endpoint', async () => {
    const m = await mock();
    m.stub.routes.set('GET /authorize', (req) => {
      const target = new URL(req.query.get('redirect_uri')!);
      target.searchParams.set('error', 'access_denied');
      target.searchParams.set('state', req.query.get('state')!);
      target.searchParams.set('iss', m.issuer);
      return { status: 302, headers: { location: target.href } };
    });
    const error = (await rejection(refuse(provider(), m))) as AuthorizationError;
    expect(error.reason).toBe('invalid-callback');
    expect(error.message).toContain('access_denied');
    expect(m.tokenRequests()).toHaveLength(0);
  });

  it('an abort during the user-agent step ends the flow with aborted', async () => {
    const m = await mock();
    const controller = new AbortController();
    const p = provider({
      redirect: (_url, signal) =>
        new Promise<URL>((_resolve, reject) => {
          signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
          controller.abort();
        }),
    });
    const error = (await rejection(refuse(p, m, controller.signal))) as AuthorizationError;
    expect(error.reason).toBe('aborted');
    expect(m.tokenRequests()).toHaveLength(0);
  });
});
