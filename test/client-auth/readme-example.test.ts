/**
 * The README-ready "connecting a client to a protected server" example
 * (test/client-auth/fixtures/connect-client.ts), run against oidc-provider and a Keel resource
 * server. The "browser" is scripted: it logs in headlessly and follows the redirect to the
 * example's loopback listener. A second run with the same token file needs no login.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it, vi } from 'vitest';
import type { HttpServing } from 'keel-mcp/node';
import { McpServer } from 'keel-mcp/server';
import { freePort } from '../helpers/free-port.js';
import { useProcessGuard, within } from '../helpers/guard.js';
import { oidcLogin } from '../helpers/oidc-login.js';
import { serveProtected } from '../helpers/oidc-protected-server.js';
import { startOidcProvider, type OidcProvider } from '../helpers/oidc-provider.js';
import { connectClient } from '../docs/snippets/auth-client.js';

// The example opens the system browser; here a scripted one logs in and follows the redirect.
const browser = vi.hoisted(() => ({ open: async (_url: URL): Promise<void> => undefined }));
vi.mock('../../src/adapters/node/oauth/open-browser.js', () => ({
  openBrowser: (url: URL) => browser.open(url),
}));

useProcessGuard();

let oidc: OidcProvider | undefined;
let serving: HttpServing | undefined;
let dir: string | undefined;
afterEach(async () => {
  await serving?.close({ deadlineMs: 2_000 });
  await oidc?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
  serving = oidc = dir = undefined;
});

it('the example logs in through the browser once, calls the tool, and reuses the stored tokens', async () => {
  oidc = await startOidcProvider({ scopes: 'mcp:read' });
  const as = oidc;
  const server = new McpServer({ name: 'protected', version: '1' });
  server.tool('whoami', { description: 'who' }, (_args, ctx) => ctx.auth?.subject ?? 'nobody');
  serving = await serveProtected(server, as);
  dir = await mkdtemp(join(tmpdir(), 'keel-readme-client-'));
  const tokenFile = join(dir, 'tokens.json');
  const port = await freePort();
  const login = oidcLogin({ username: 'ada' });
  let opened = 0;
  browser.open = async (authorizationUrl: URL): Promise<void> => {
    opened++;
    const callback = await login(authorizationUrl, new AbortController().signal);
    await (await fetch(callback)).text();
  };
  expect(await within(connectClient(serving.url, tokenFile, port), 15_000, 'first run')).toBe('ada');
  expect(opened).toBe(1);
  expect(await within(connectClient(serving.url, tokenFile, port), 15_000, 'second run')).toBe('ada');
  expect(opened).toBe(1);
  expect(as.serverErrors).toEqual([]);
});
