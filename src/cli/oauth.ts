/**
 * OAuth for HTTP servers that answer 401: the user signs in through the browser (a loopback
 * redirect on a fixed port, `--auth-port`), and tokens are kept in a file under
 * `$XDG_CONFIG_HOME/keel/` (or `~/.config/keel/`), so the next run needs no login.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { OAuthClientProvider } from '../client/index.js';
import type { HttpAuthProvider } from '../core/auth.js';
import { browserLogin, FileTokenStore } from '../adapters/node/index.js';
import type { CommonOptions } from './common-options.js';

/** The default loopback port of the OAuth redirect (`http://127.0.0.1:8976/callback`). */
export const DEFAULT_AUTH_PORT = 8976;

/**
 * Where `keel` keeps OAuth tokens and client registrations.
 *
 * @example
 * tokenFile({ XDG_CONFIG_HOME: '/cfg' }); // '/cfg/keel/oauth-tokens.json'
 */
export function tokenFile(env: NodeJS.ProcessEnv = process.env): string {
  const base =
    env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME !== '' ? env.XDG_CONFIG_HOME : join(homedir(), '.config');
  return join(base, 'keel', 'oauth-tokens.json');
}

/**
 * The transport's `auth` for `url`: nothing happens until the server refuses a request. None when
 * the user sends an `Authorization` header of their own.
 *
 * @example
 * new StreamableHttpClientTransport(url, { auth: oauthFor(url, options, console.error) });
 */
export function oauthFor(
  url: URL,
  options: Pick<CommonOptions, 'authPort' | 'browser'> & { headers: Record<string, string> },
  print: (line: string) => void,
): HttpAuthProvider | undefined {
  if (Object.keys(options.headers).some((name) => name.toLowerCase() === 'authorization')) return undefined;
  const showUrl = (authorizationUrl: URL): void =>
    print(`keel: open this URL to sign in: ${authorizationUrl.href}`);
  const login = browserLogin({
    port: options.authPort ?? DEFAULT_AUTH_PORT,
    // --no-browser: only print the URL (SSH, containers); otherwise print it if the browser fails.
    ...(options.browser
      ? { onBrowserError: (_error: unknown, u: URL) => showUrl(u) }
      : { openBrowser: showUrl }),
  });
  return new OAuthClientProvider({
    clientMetadata: { client_name: 'keel (MCP command-line client)', redirect_uris: [login.redirectUri] },
    redirect: async (authorizationUrl, signal) => {
      print(`keel: ${url.href} asks you to sign in${options.browser ? ' (opening your browser)' : ''}`);
      return login(authorizationUrl, signal);
    },
    store: new FileTokenStore(tokenFile()),
  });
}
