/**
 * The default browser opener: the platform's program, no shell, only http(s) URLs, failures
 * reported as rejections (never thrown synchronously).
 */
import { expect, test } from 'vitest';
import { openBrowser } from '../../src/adapters/node/index.js';
import { browserCommand, spawnDetached } from '../../src/adapters/node/oauth/open-browser.js';
import { LocalError } from '../../src/core/errors.js';
import { useProcessGuard } from '../helpers/guard.js';

useProcessGuard();

const url = new URL('https://as.example/authorize?client_id=c&state=a b&redirect_uri=http://127.0.0.1:1/cb');

test('macOS uses open, Linux and the rest xdg-open, each with the URL as one argument', () => {
  expect(browserCommand(url, 'darwin')).toEqual({
    command: 'open',
    args: [url.href],
    windowsVerbatimArguments: false,
  });
  for (const platform of ['linux', 'freebsd']) {
    expect(browserCommand(url, platform)).toEqual({
      command: 'xdg-open',
      args: [url.href],
      windowsVerbatimArguments: false,
    });
  }
});

test('Windows uses cmd /c start "" with the URL quoted, so cmd does not split it at "&"', () => {
  const command = browserCommand(url, 'win32');
  expect(command).toEqual({
    command: 'cmd',
    args: ['/c', 'start', '""', `"${url.href}"`],
    windowsVerbatimArguments: true,
  });
  expect(url.href).toContain('&');
  // Inside the quotes nothing can close them: the parsed URL encodes every quote.
  const sneaky = new URL('https://as.example/a"&calc.exe&"?q="&calc');
  expect(browserCommand(sneaky, 'win32').args[3]?.slice(1, -1)).not.toContain('"');
});

test('only http(s) URLs are opened; anything else is a rejection, not a synchronous throw', async () => {
  for (const bad of ['file:///etc/passwd', 'javascript:alert(1)', 'ms-settings:', 'smb://host/share']) {
    expect(() => browserCommand(new URL(bad), 'linux')).toThrow(LocalError);
    let promise: Promise<void> | undefined;
    expect(() => (promise = openBrowser(new URL(bad)))).not.toThrow();
    await expect(promise).rejects.toThrow(/only http\(s\) URLs are opened/);
  }
});

test('an opener that cannot be started is reported as a rejection naming the program and errno', async () => {
  const error: unknown = await spawnDetached('keel-no-such-opener', [url.href]).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(LocalError);
  expect((error as Error).message).toBe('Could not start the browser opener "keel-no-such-opener" (ENOENT)');
});

test('a started opener resolves and is not waited for', async () => {
  await expect(spawnDetached(process.execPath, ['-e', ''])).resolves.toBeUndefined();
});
