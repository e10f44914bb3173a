/**
 * The default browser opener: the platform's program, no shell, only http(s) URLs, failures
 * reported as rejections (never thrown synchronously).
 */
import { expect, test } from 'vitest';
import { openBrowser } from 'keel-mcp/node';
import { browserCommand, spawnDetached } from '../../src/adapters/node/oauth/open-browser.js';
import { LocalError } from 'keel-mcp/core';
import { useProcessGuard } from '../helpers/guard.js';

useProcessGuard();

const url = new URL('https://as.example/authorize?client_id=c&state=a b&redirect_uri=http://127.0.0.1:1/cb');

test('macOS uses open, Linux and the rest xdg-open, each with the URL as one argument', () => {
  expect(browserCommand(url, 'darwin')).toEqual({ command: 'open', args: [url.href] });
  for (const platform of ['linux', 'freebsd']) {
    expect(browserCommand(url, platform)).toEqual({ command: 'xdg-open', args: [url.href] });
  }
});

test('Windows runs rundll32 url.dll,FileProtocolHandler from System32, no cmd.exe: %VAR%, & and ^ reach it as written', () => {
  const sneaky = new URL('https://as.example/a"b?state=%PATH%&x=%USERPROFILE%^&y=a b&z=!x!#%TEMP%');
  for (const target of [url, sneaky]) {
    expect(browserCommand(target, 'win32', 'C:\\Windows')).toEqual({
      command: 'C:\\Windows\\System32\\rundll32.exe',
      args: ['url.dll,FileProtocolHandler', target.href],
    });
  }
  // Nothing to expand or escape: no shell reads the URL, so it stays exactly as parsed.
  expect(sneaky.href).toContain('%PATH%');
  expect(sneaky.href).toContain('%USERPROFILE%^&');
  // Node quotes a Windows argument only when it holds a space, a tab or a quote, and rundll32
  // hands the rest of its command line to FileProtocolHandler as is. A parsed URL encodes all
  // three, so the handler gets href verbatim, with no quotes around it.
  expect(sneaky.href).not.toMatch(/[ \t"]/);
});

test('Windows finds rundll32 under SystemRoot, and not via PATH or the working directory', () => {
  expect(browserCommand(url, 'win32', 'D:\\WinNT').command).toBe('D:\\WinNT\\System32\\rundll32.exe');
  // No SystemRoot, or one that is not an absolute path: the default location.
  for (const root of [undefined, '', 'Windows', '.\\evil']) {
    expect(browserCommand(url, 'win32', root).command).toBe('C:\\Windows\\System32\\rundll32.exe');
  }
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
