/**
 * loopbackRedirect: one authorization callback caught on 127.0.0.1, the browser hook called with
 * the authorization URL, and the listener closed however the wait ends.
 */
import { connect, createServer } from 'node:net';
import { expect, test } from 'vitest';
import { loopbackRedirect } from 'keel-mcp/node';
import { LocalError, RequestAbortedError, RequestTimeoutError } from 'keel-mcp/core';
import { useProcessGuard, within } from '../helpers/guard.js';
import { AUTHORIZE, portOf, raw, recorder, released } from './loopback-support.js';

useProcessGuard();

test('the callback resolves the wait with the full URL, the browser hook saw the authorization URL, the listener closes', async () => {
  const browser = recorder();
  const loopback = await loopbackRedirect(browser);
  expect(loopback.redirectUri).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
  const waiting = loopback.redirect(AUTHORIZE, new AbortController().signal);
  expect(browser.opened.map(String)).toEqual([AUTHORIZE.href]);

  const response = await fetch(`${loopback.redirectUri}?code=c0de&state=s1&iss=https%3A%2F%2Fas.example`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/html/);
  expect(response.headers.get('referrer-policy')).toBe('no-referrer');
  expect(await response.text()).toContain('You can close this tab');

  const callback = await within(waiting, 5_000, 'callback');
  expect(callback.href).toBe(`${loopback.redirectUri}?code=c0de&state=s1&iss=https%3A%2F%2Fas.example`);
  // No close() call: settling alone releases the port and every connection (the guard checks those).
  expect(await released(loopback.redirectUri)).toBe(true);
});

test('a connection that never sent a request does not keep the listener open after the callback', async () => {
  const loopback = await loopbackRedirect(recorder());
  const waiting = loopback.redirect(AUTHORIZE, new AbortController().signal);
  const silent = connect(portOf(loopback.redirectUri), '127.0.0.1');
  await new Promise((resolve) => silent.once('connect', resolve));
  const silentClosed = new Promise((resolve) => silent.once('close', resolve));
  await (await fetch(`${loopback.redirectUri}?code=c&state=s1`)).text();
  await waiting;
  await within(silentClosed, 5_000, 'the silent connection to be closed by the listener');
  await within(loopback.close(), 5_000, 'close');
});

test('other paths get 404, a POST gets 405, a callback before redirect() gets 409; none ends the wait', async () => {
  const loopback = await loopbackRedirect(recorder());
  const early = await fetch(`${loopback.redirectUri}?code=forged&state=x`);
  expect(early.status).toBe(409);
  await early.text();

  const waiting = loopback.redirect(AUTHORIZE, new AbortController().signal);
  const favicon = await fetch(new URL('/favicon.ico', loopback.redirectUri));
  expect(favicon.status).toBe(404);
  await favicon.text();
  const posted = await fetch(`${loopback.redirectUri}?code=p`, { method: 'POST', body: 'x' });
  expect(posted.status).toBe(405);
  expect(posted.headers.get('allow')).toBe('GET');
  await posted.text();

  await (await fetch(`${loopback.redirectUri}?code=real&state=s1`)).text();
  expect((await within(waiting, 5_000, 'callback')).searchParams.get('code')).toBe('real');
  await loopback.close();
});

test('an error callback settles the wait too (the OAuth client reads the error), and the page echoes nothing', async () => {
  const loopback = await loopbackRedirect(recorder());
  const waiting = loopback.redirect(AUTHORIZE, new AbortController().signal);
  const response = await fetch(
    `${loopback.redirectUri}?error=access_denied&error_description=%3Cscript%3E&state=s1`,
  );
  const page = await response.text();
  expect(page).toContain('Authorization failed');
  expect(page).not.toContain('<script>');
  expect(page).not.toContain('access_denied');
  expect((await within(waiting, 5_000, 'callback')).searchParams.get('error')).toBe('access_denied');
  await loopback.close();
});

test('a second callback after the first is answered but ignored', async () => {
  const loopback = await loopbackRedirect(recorder());
  const waiting = loopback.redirect(AUTHORIZE, new AbortController().signal);
  const { host, pathname } = new URL(loopback.redirectUri);
  // Two requests pipelined on one connection: both reach the listener before it closes.
  const request = (code: string) => `GET ${pathname}?code=${code}&state=s1 HTTP/1.1\r\nHost: ${host}\r\n\r\n`;
  const answers = await within(
    raw(portOf(loopback.redirectUri), request('first') + request('second')),
    5_000,
    'raw',
  );
  expect(answers.match(/HTTP\/1\.1 200 OK/g)).toHaveLength(2);
  expect((await waiting).searchParams.get('code')).toBe('first');
  await loopback.close();
});

test('the resolved URL has the listener origin, whatever Host header the request carried', async () => {
  const loopback = await loopbackRedirect(recorder());
  const waiting = loopback.redirect(AUTHORIZE, new AbortController().signal);
  const { pathname } = new URL(loopback.redirectUri);
  await raw(
    portOf(loopback.redirectUri),
    `GET ${pathname}?code=k&state=s1 HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n`,
  );
  expect((await waiting).href).toBe(`${loopback.redirectUri}?code=k&state=s1`);
  await loopback.close();
});

test('a request target that is not a URL gets 400 and does not end the wait', async () => {
  const loopback = await loopbackRedirect(recorder());
  const waiting = loopback.redirect(AUTHORIZE, new AbortController().signal);
  const port = portOf(loopback.redirectUri);
  const answer = await raw(
    port,
    `GET http://[::1/callback?code=x HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n`,
  );
  expect(answer).toMatch(/^HTTP\/1\.1 400 /);
  // An absolute-form target on the right path counts, with the listener's origin.
  await raw(
    port,
    `GET http://evil.example/callback?code=y&state=s1 HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n`,
  );
  expect((await waiting).href).toBe(`${loopback.redirectUri}?code=y&state=s1`);
  await loopback.close();
});

test('abort rejects the wait with RequestAbortedError and closes the listener', async () => {
  const loopback = await loopbackRedirect(recorder());
  const controller = new AbortController();
  const waiting = loopback.redirect(AUTHORIZE, controller.signal);
  controller.abort(new Error('user pressed ctrl-c'));
  const error: unknown = await waiting.catch((e: unknown) => e);
  expect(error).toBeInstanceOf(RequestAbortedError);
  expect((error as Error).cause).toEqual(new Error('user pressed ctrl-c'));
  expect(await released(loopback.redirectUri)).toBe(true);
});

test('an already aborted signal rejects at once and the browser is not opened', async () => {
  const browser = recorder();
  const loopback = await loopbackRedirect(browser);
  await expect(loopback.redirect(AUTHORIZE, AbortSignal.abort())).rejects.toBeInstanceOf(RequestAbortedError);
  expect(browser.opened).toEqual([]);
  await loopback.close();
});

test('the wait times out with a RequestTimeoutError naming the redirect URI, and the listener closes', async () => {
  const loopback = await loopbackRedirect({ ...recorder(), timeoutMs: 50 });
  const error: unknown = await loopback
    .redirect(AUTHORIZE, new AbortController().signal)
    .catch((e: unknown) => e);
  expect(error).toBeInstanceOf(RequestTimeoutError);
  expect((error as Error).message).toContain(loopback.redirectUri);
  expect(await released(loopback.redirectUri)).toBe(true);
});

test('the timeout bounds the listener even if redirect() is never called', async () => {
  const loopback = await loopbackRedirect({ ...recorder(), timeoutMs: 50 });
  await within(loopback.close(), 5_000, 'close');
  const browser = recorder();
  const closedByTimer = await loopbackRedirect({ ...browser, timeoutMs: 20 });
  // No close() call: the timer alone releases the port (the guard also checks nothing is left).
  expect(await released(closedByTimer.redirectUri)).toBe(true);
  // redirect() after that gets the timeout, and opens nothing.
  await expect(closedByTimer.redirect(AUTHORIZE, new AbortController().signal)).rejects.toBeInstanceOf(
    RequestTimeoutError,
  );
  expect(browser.opened).toEqual([]);
});

test('a browser hook that fails rejects the wait, unless onBrowserError takes it (then the wait goes on)', async () => {
  const failing = await loopbackRedirect({
    openBrowser: () => Promise.reject(new Error('no display')),
  });
  const error: unknown = await failing
    .redirect(AUTHORIZE, new AbortController().signal)
    .catch((e: unknown) => e);
  expect(error).toBeInstanceOf(LocalError);
  expect((error as Error).cause).toEqual(new Error('no display'));
  await failing.close();

  const reported: [unknown, URL][] = [];
  const tolerant = await loopbackRedirect({
    openBrowser: () => {
      throw new Error('sync failure');
    },
    onBrowserError: (e, url) => void reported.push([e, url]),
  });
  const waiting = tolerant.redirect(AUTHORIZE, new AbortController().signal);
  expect(reported).toEqual([[new Error('sync failure'), AUTHORIZE]]);
  await (await fetch(`${tolerant.redirectUri}?code=manual&state=s1`)).text();
  expect((await waiting).searchParams.get('code')).toBe('manual');
  await tolerant.close();
});

test('only http(s) authorization URLs are opened', async () => {
  for (const bad of ['file:///etc/passwd', 'javascript:alert(1)', 'myapp://x']) {
    const browser = recorder();
    const loopback = await loopbackRedirect(browser);
    await expect(loopback.redirect(new URL(bad), new AbortController().signal)).rejects.toThrow(
      /only http\(s\)/,
    );
    expect(browser.opened).toEqual([]);
    await loopback.close();
  }
});

test('close() rejects a pending wait, is idempotent, and a used listener refuses a second redirect()', async () => {
  const loopback = await loopbackRedirect(recorder());
  const waiting = loopback.redirect(AUTHORIZE, new AbortController().signal);
  await expect(loopback.redirect(AUTHORIZE, new AbortController().signal)).rejects.toThrow(
    /create one per authorization/,
  );
  await Promise.all([loopback.close(), loopback.close()]);
  await expect(waiting).rejects.toThrow(/closed before the authorization callback/);
  await loopback.close();
  const unused = await loopbackRedirect(recorder());
  await unused.close();
  await expect(unused.redirect(AUTHORIZE, new AbortController().signal)).rejects.toThrow(/was closed before/);
});

test('a given port and path are used; bad options are refused', async () => {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = (probe.address() as { port: number }).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));

  const loopback = await loopbackRedirect({ ...recorder(), port, path: '/oauth/done' });
  expect(loopback.redirectUri).toBe(`http://127.0.0.1:${port}/oauth/done`);
  // The port is taken now: a second listener on it fails cleanly.
  await expect(loopbackRedirect({ ...recorder(), port })).rejects.toThrow(/EADDRINUSE/);
  await loopback.close();

  await expect(loopbackRedirect({ port: -1 })).rejects.toBeInstanceOf(RangeError);
  await expect(loopbackRedirect({ path: 'callback' })).rejects.toBeInstanceOf(TypeError);
  await expect(loopbackRedirect({ path: '/a?b' })).rejects.toBeInstanceOf(TypeError);
  await expect(loopbackRedirect({ timeoutMs: 0 })).rejects.toBeInstanceOf(RangeError);
});
