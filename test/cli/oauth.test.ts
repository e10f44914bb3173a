/**
 * `keel` against an HTTP server that answers 401: the user signs in (here `--no-browser` prints
 * the URL, and a scripted browser logs in to a real OpenID provider and follows the redirect to
 * keel's loopback port), the call goes through, and the tokens kept under $XDG_CONFIG_HOME/keel
 * make the second run need no login.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, expect, test } from 'vitest';
import type { HttpServing } from 'keel-mcp/node';
import { tokenFile } from '../../src/cli/oauth.js';
import { McpServer } from 'keel-mcp/server';
import { freePort } from '../helpers/free-port.js';
import { useProcessGuard, within } from '../helpers/guard.js';
import { oidcLogin } from '../helpers/oidc-login.js';
import { serveProtected } from '../helpers/oidc-protected-server.js';
import { startOidcProvider, type OidcProvider } from '../helpers/oidc-provider.js';
import { BIN, requireBuiltBin, ROOT } from './helpers.js';

useProcessGuard();

let oidc: OidcProvider | undefined;
let serving: HttpServing | undefined;
const config = mkdtempSync(join(tmpdir(), 'keel-cli-oauth-'));
afterEach(async () => {
  await serving?.close({ deadlineMs: 2_000 });
  await oidc?.close();
  serving = oidc = undefined;
});
afterAll(() => rmSync(config, { recursive: true, force: true }));

/** Run keel; `onStderr` sees stderr as it comes. */
function keel(args: readonly string[], onStderr: (text: string) => void = () => undefined) {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, XDG_CONFIG_HOME: config },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
  child.stderr.setEncoding('utf8').on('data', (text: string) => {
    stderr += text;
    onStderr(stderr);
  });
  const exit = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
  return within(exit, 30_000, `keel ${args.join(' ')}`).finally(() => child.kill('SIGKILL'));
}

test('tokenFile follows XDG_CONFIG_HOME, else ~/.config', () => {
  expect(tokenFile({ XDG_CONFIG_HOME: '/cfg' })).toBe('/cfg/keel/oauth-tokens.json');
  expect(tokenFile({})).toMatch(/\.config\/keel\/oauth-tokens\.json$/);
});

test('a 401 starts a browser login once; the stored tokens serve the next run', async () => {
  requireBuiltBin();
  oidc = await startOidcProvider({ scopes: 'mcp:read' });
  const server = new McpServer({ name: 'protected', version: '1' });
  server.tool('whoami', { description: 'who' }, (_args, ctx) => ctx.auth?.subject ?? 'nobody');
  serving = await serveProtected(server, oidc);
  const port = await freePort();
  const login = oidcLogin({ username: 'ada' });
  let browser: Promise<void> | undefined;
  const args = ['call', serving.url, 'whoami', '--no-browser', '--auth-port', String(port)];

  const first = await keel(args, (stderr) => {
    const url = /open this URL to sign in: (\S+)/.exec(stderr)?.[1];
    if (url && !browser) {
      browser = (async () => {
        const callback = await login(new URL(url), new AbortController().signal);
        expect(callback.href.startsWith(`http://127.0.0.1:${port}/callback?`)).toBe(true);
        await (await fetch(callback)).text(); // keel's loopback listener answers the browser
      })();
    }
  });
  await within(browser ?? Promise.reject(new Error(`no login URL: ${first.stderr}`)), 15_000, 'the login');
  expect(first.stderr).toContain(`keel: ${serving.url} asks you to sign in`);
  expect([first.code, first.stdout]).toEqual([0, 'ada\n']);
  expect(existsSync(join(config, 'keel', 'oauth-tokens.json'))).toBe(true);
  expect(statSync(join(config, 'keel', 'oauth-tokens.json')).mode & 0o777).toBe(0o600);

  const second = await keel(args);
  expect([second.code, second.stdout, second.stderr]).toEqual([0, 'ada\n', '']);
  expect(oidc.serverErrors).toEqual([]);
}, 60_000);
