/**
 * browserLogin: one loopback listener per login on the registered port, released when the login
 * ends (done, aborted), so two logins in a row (a first login, then a step-up) both work and an
 * idle client holds no port.
 */
import { expect, test } from 'vitest';
import { browserLogin } from 'keel-mcp/node';
import { RequestAbortedError } from 'keel-mcp/core';
import { freePort } from '../helpers/free-port.js';
import { useProcessGuard, within } from '../helpers/guard.js';
import { AUTHORIZE, refused } from './loopback-support.js';

useProcessGuard();

test('two logins in a row on the registered port; the port is free before, between and after', async () => {
  const port = await freePort();
  const opened: URL[] = [];
  // The "browser": the authorization server redirects straight back with a code and the state.
  const openBrowser = async (url: URL): Promise<void> => {
    opened.push(url);
    const callback = new URL(login.redirectUri);
    callback.searchParams.set('code', `c${opened.length}`);
    callback.searchParams.set('state', url.searchParams.get('state')!);
    await (await fetch(callback)).text();
  };
  const login = browserLogin({ port, openBrowser });
  expect(login.redirectUri).toBe(`http://127.0.0.1:${port}/callback`);
  expect(await refused(port)).toBe(true);

  const first = await within(login(AUTHORIZE, new AbortController().signal), 5_000, 'first login');
  expect(first.searchParams.get('code')).toBe('c1');
  expect(await refused(port)).toBe(true);

  const stepUp = new URL(AUTHORIZE);
  stepUp.searchParams.set('state', 's2');
  const second = await within(login(stepUp, new AbortController().signal), 5_000, 'step-up');
  expect(second.searchParams.get('code')).toBe('c2');
  expect(second.searchParams.get('state')).toBe('s2');
  expect(opened).toHaveLength(2);
  expect(await refused(port)).toBe(true);
});

test('an aborted login rejects and releases the port', async () => {
  const port = await freePort();
  const controller = new AbortController();
  const login = browserLogin({ port, openBrowser: () => controller.abort() });
  const error = await within(
    login(AUTHORIZE, controller.signal).then(
      () => undefined,
      (e: unknown) => e,
    ),
    5_000,
    'aborted login',
  );
  expect(error).toBeInstanceOf(RequestAbortedError);
  expect(await refused(port)).toBe(true);
});

test.each([0, -1, 70_000, 1.5, Number.NaN])(
  'port %s is refused at once (a redirect URI needs a fixed port)',
  (port) => {
    expect(() => browserLogin({ port })).toThrow(RangeError);
  },
);

test('review 2: two logins at once take turns on the one port (no EADDRINUSE); a queued one can be aborted', async () => {
  const port = await freePort();
  const opened: string[] = [];
  let releaseFirst!: () => void;
  const firstMayFinish = new Promise<void>((resolve) => (releaseFirst = resolve));
  let firstOpened!: () => void;
  const firstIsOpen = new Promise<void>((resolve) => (firstOpened = resolve));
  const openBrowser = async (url: URL): Promise<void> => {
    const state = url.searchParams.get('state')!;
    opened.push(state);
    if (state === 'first') {
      firstOpened();
      await firstMayFinish;
    }
    const callback = new URL(login.redirectUri);
    callback.searchParams.set('code', `code-${state}`);
    callback.searchParams.set('state', state);
    await (await fetch(callback)).text();
  };
  const login = browserLogin({ port, openBrowser });
  const withState = (state: string): URL => {
    const url = new URL(AUTHORIZE);
    url.searchParams.set('state', state);
    return url;
  };
  const first = login(withState('first'), new AbortController().signal);
  await within(firstIsOpen, 5_000, 'first login under way');
  const second = login(withState('second'), new AbortController().signal);
  const quitter = new AbortController();
  const third = login(withState('third'), quitter.signal).then(
    () => undefined,
    (e: unknown) => e,
  );
  quitter.abort();
  expect(await within(third, 5_000, 'aborted while queued')).toBeInstanceOf(RequestAbortedError);
  expect(opened).toEqual(['first']);
  releaseFirst();
  expect((await within(first, 5_000, 'first')).searchParams.get('code')).toBe('code-first');
  expect((await within(second, 5_000, 'second')).searchParams.get('code')).toBe('code-second');
  expect(opened).toEqual(['first', 'second']);
  expect(await refused(port)).toBe(true);
});
