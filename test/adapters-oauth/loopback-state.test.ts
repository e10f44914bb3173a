/**
 * loopbackRedirect settles only on the callback that carries the `state` of the authorization URL
 * it opened: anything on the machine (or a web page that guesses the port) can reach the
 * listener first, and must not be able to end the wait with a forged callback.
 */
import { expect, test } from 'vitest';
import { loopbackRedirect } from 'keel-mcp/node';
import { LocalError } from 'keel-mcp/core';
import { useProcessGuard, within } from '../helpers/guard.js';
import { AUTHORIZE, portOf, raw, recorder, released } from './loopback-support.js';

useProcessGuard();

/** GET `query` on the listener; the status and the body. */
async function get(redirectUri: string, query: string): Promise<{ status: number; body: string }> {
  const response = await fetch(`${redirectUri}?${query}`);
  return { status: response.status, body: await response.text() };
}

test('forged callbacks (wrong state, no state, an error with a wrong state) get 400 and do not end the wait; the real one does', async () => {
  const loopback = await loopbackRedirect(recorder());
  const waiting = loopback.redirect(AUTHORIZE, new AbortController().signal);
  const forged = [
    'code=forged&state=wrong',
    'code=forged',
    'error=access_denied&state=wrong',
    'error=x',
    'code=forged&state=',
    'code=forged&state=S1', // exact match: case matters
    'code=forged&state=s1x',
    // Two values: which one the OAuth client would read is not ours to guess.
    'code=forged&state=s1&state=wrong',
    'code=forged&state=wrong&state=s1',
  ];
  for (const query of forged) {
    const answer = await get(loopback.redirectUri, query);
    expect({ query, status: answer.status }).toEqual({ query, status: 400 });
    // The refusal echoes nothing from the request.
    expect(answer.body).not.toContain('forged');
    expect(answer.body).not.toContain('wrong');
  }
  // Had any forged callback settled the wait, it would hold that URL (or the listener be gone).
  const real = await get(loopback.redirectUri, 'code=real&state=s1');
  expect(real.status).toBe(200);
  expect(real.body).toContain('You can close this tab');
  const callback = await within(waiting, 5_000, 'callback');
  expect(callback.href).toBe(`${loopback.redirectUri}?code=real&state=s1`);
  expect(await released(loopback.redirectUri)).toBe(true);
});

test('an error callback with the right state settles the wait (the OAuth client reads the error)', async () => {
  const loopback = await loopbackRedirect(recorder());
  const waiting = loopback.redirect(AUTHORIZE, new AbortController().signal);
  expect((await get(loopback.redirectUri, 'error=x&state=wrong')).status).toBe(400);
  const answer = await get(loopback.redirectUri, 'error=access_denied&state=s1');
  expect(answer.status).toBe(200);
  expect(answer.body).toContain('Authorization failed');
  expect((await within(waiting, 5_000, 'callback')).searchParams.get('error')).toBe('access_denied');
  await loopback.close();
});

test('after the real callback, a forged one on the same connection gets 400 and changes nothing', async () => {
  const loopback = await loopbackRedirect(recorder());
  const waiting = loopback.redirect(AUTHORIZE, new AbortController().signal);
  const { host, pathname } = new URL(loopback.redirectUri);
  const request = (query: string) => `GET ${pathname}?${query} HTTP/1.1\r\nHost: ${host}\r\n\r\n`;
  const answers = await within(
    raw(portOf(loopback.redirectUri), request('code=real&state=s1') + request('code=forged&state=no')),
    5_000,
    'raw',
  );
  expect(answers.match(/^HTTP\/1\.1 \d+/gm)).toEqual(['HTTP/1.1 200', 'HTTP/1.1 400']);
  expect((await waiting).searchParams.get('code')).toBe('real');
  await loopback.close();
});

test('a state with characters that need encoding matches exactly as the authorization server echoes it', async () => {
  const state = 'a b+c/d=é&';
  const authorize = new URL('https://as.example/authorize?client_id=c');
  authorize.searchParams.set('state', state);
  const loopback = await loopbackRedirect(recorder());
  const waiting = loopback.redirect(authorize, new AbortController().signal);
  // `+` decodes to a space in a query: a callback that did not encode it is another state.
  expect((await get(loopback.redirectUri, 'code=forged&state=a+b+c/d=é')).status).toBe(400);
  const echoed = new URLSearchParams({ code: 'real', state }).toString();
  expect((await get(loopback.redirectUri, echoed)).status).toBe(200);
  expect((await within(waiting, 5_000, 'callback')).searchParams.get('state')).toBe(state);
  await loopback.close();
});

test('an authorization URL without exactly one non-empty state is refused at once: no browser, listener closed', async () => {
  for (const query of ['client_id=c', 'client_id=c&state=', 'client_id=c&state=st4te-one&state=st4te-two']) {
    const browser = recorder();
    const loopback = await loopbackRedirect(browser);
    const error: unknown = await within(
      loopback.redirect(new URL(`https://as.example/authorize?${query}`), new AbortController().signal),
      5_000,
      'the refusal',
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LocalError);
    expect((error as Error).message).toMatch(/state/);
    // The message names the problem, never a state value.
    expect((error as Error).message).not.toContain('st4te');
    expect(browser.opened).toEqual([]);
    expect(await released(loopback.redirectUri)).toBe(true);
    await loopback.close();
  }
});
