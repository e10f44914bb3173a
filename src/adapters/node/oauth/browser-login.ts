/**
 * The user-agent step for CLI and desktop clients as one value: every login (the first one, a
 * step-up, a login after a refresh token expired) opens its own loopback listener on the same
 * registered port, sends the user to the browser, and closes the listener when it ends.
 */
import type { AuthorizationRedirect } from '../../../core/auth.js';
import { RequestAbortedError } from '../../../core/errors.js';
import { untilAborted } from '../../../core/until-aborted.js';
import { loopbackRedirect, type LoopbackRedirectOptions } from './loopback-redirect.js';

/**
 * @example
 * const login = browserLogin({ port: 8976, onBrowserError: (_e, url) => console.error(`Open ${url.href}`) });
 */
export interface BrowserLoginOptions extends LoopbackRedirectOptions {
  /**
   * Port on 127.0.0.1, fixed: the redirect URI is registered with the authorization server before
   * any listener exists, and it must match exactly on every login.
   */
  port: number;
}

/**
 * A browser login as an `AuthorizationRedirect`, with the `redirectUri` to register for it.
 * Listeners exist only while a login is under way, so an idle client holds no port. Logins take
 * turns (one port, one listener): a second login started meanwhile (another server, another
 * provider sharing this login) waits for the first to end, or for its own signal.
 *
 * @example
 * const login = browserLogin({ port: 8976 });
 * const auth = new OAuthClientProvider({
 *   clientMetadata: { client_name: 'My agent', redirect_uris: [login.redirectUri] },
 *   redirect: login,
 * });
 */
export function browserLogin(
  options: BrowserLoginOptions,
): AuthorizationRedirect & { readonly redirectUri: string } {
  const { port } = options;
  if (!Number.isInteger(port) || port < 1 || port > 65_535) {
    throw new RangeError(`browserLogin needs a fixed port between 1 and 65535 (got ${String(port)})`);
  }
  const redirectUri = `http://127.0.0.1:${port}${options.path ?? '/callback'}`;
  let turn: Promise<void> = Promise.resolve();
  const login = async (authorizationUrl: URL, signal: AbortSignal): Promise<URL> => {
    const previous = turn;
    let done!: () => void;
    turn = new Promise<void>((resolve) => (done = resolve));
    try {
      await untilAborted(previous, signal, () => new RequestAbortedError({ cause: signal.reason }));
      const loopback = await loopbackRedirect(options);
      try {
        return await loopback.redirect(authorizationUrl, signal);
      } finally {
        await loopback.close();
      }
    } finally {
      // A login that gave up while waiting still hands the port on only after the one before it.
      void previous.then(done);
    }
  };
  return Object.assign(login, { redirectUri });
}
