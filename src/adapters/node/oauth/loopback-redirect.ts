/**
 * The user-agent step of the authorization code flow for CLI and desktop clients (RFC 8252
 * §7.3): open the browser on the authorization URL and catch the redirect on a loopback port.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { AuthorizationRedirect } from '../../../core/auth.js';
import { LocalError, RequestAbortedError, RequestTimeoutError } from '../../../core/errors.js';
import { page, plain } from './callback-responses.js';
import { openBrowser as platformOpenBrowser } from './open-browser.js';

/**
 * @example
 * const loopback = await loopbackRedirect({ port: 8765, timeoutMs: 120_000, onBrowserError: (_e, url) => console.error(`Open ${url.href}`) });
 */
export interface LoopbackRedirectOptions {
  /** Port on 127.0.0.1; 0 (the default) picks a free one. */
  port?: number;
  /** Path of the redirect URI. Default `/callback`. */
  path?: string;
  /** Longest life of the listener, from creation, in ms; past it the wait rejects. Default 5 minutes. */
  timeoutMs?: number;
  /** Opens the authorization URL (only http(s) URLs reach it). Default: the platform opener, {@link openBrowser}. */
  openBrowser?: (authorizationUrl: URL) => void | Promise<void>;
  /**
   * Called when `openBrowser` fails, and the wait goes on (print the URL for the user to open).
   * Without it, a failure to open the browser rejects the wait at once.
   */
  onBrowserError?: (error: unknown, authorizationUrl: URL) => void;
}

/**
 * A listening loopback redirect: register {@link redirectUri} with the authorization server, and
 * hand {@link redirect} to the OAuth client.
 *
 * @example
 * const { redirectUri, redirect, close } = await loopbackRedirect();
 * try { const callback = await redirect(authorizationUrl, AbortSignal.timeout(60_000)); } finally { await close(); }
 */
export interface LoopbackRedirect {
  /** `http://127.0.0.1:<port><path>`. */
  readonly redirectUri: string;
  /**
   * Opens the browser on the authorization URL and resolves with the full callback URL (its
   * query carries `code`, `state`, `iss` or an `error`: checking them is the OAuth client's job).
   * Only a callback whose `state` equals the authorization URL's settles the wait; an
   * authorization URL without exactly one non-empty `state` is refused at once. One
   * authorization per listener: the listener closes once it settles.
   */
  readonly redirect: AuthorizationRedirect;
  /** Stop listening (a pending wait rejects); resolves once the port is released. Idempotent. */
  close(): Promise<void>;
}

const DEFAULT_TIMEOUT_MS = 5 * 60_000;

/**
 * Listen on 127.0.0.1 for one authorization callback. The first GET of the redirect path after
 * `redirect` was called that carries the authorization URL's `state` is answered with a small
 * "you can close this tab" page and settles the wait. Anything on this machine (or a web page
 * that guesses the port) can reach a loopback port first, so a callback with another `state`, or
 * none, gets 400 and does not end the wait; other paths get 404; a later callback is answered and
 * ignored. The wait rejects on abort, on timeout, or when the browser cannot be opened; in every
 * case the listener closes. The OAuth client still checks the callback (`state`, `iss`, PKCE).
 *
 * @example
 * const loopback = await loopbackRedirect({ timeoutMs: 120_000 });
 * // Register loopback.redirectUri as the client's redirect URI, build the authorization URL, then:
 * const callback = await loopback.redirect(authorizationUrl, AbortSignal.timeout(120_000));
 */
export async function loopbackRedirect(options: LoopbackRedirectOptions = {}): Promise<LoopbackRedirect> {
  const { port = 0, path = '/callback', timeoutMs = DEFAULT_TIMEOUT_MS, onBrowserError } = options;
  const open = options.openBrowser ?? platformOpenBrowser;
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new RangeError(`Invalid port: ${port}`);
  if (!/^\/[^?#\s]*$/.test(path)) throw new TypeError(`Invalid redirect path: ${JSON.stringify(path)}`);
  if (!(timeoutMs > 0) || !Number.isFinite(timeoutMs))
    throw new RangeError(`Invalid timeoutMs: ${timeoutMs}`);

  let waiting = false;
  let settled = false;
  /** The `state` of the authorization URL being waited on: the one callback that may settle. */
  let expectedState: string | undefined;
  let settle!: (outcome: { url: URL } | { error: Error }) => void;
  const outcome = new Promise<URL>((resolve, reject) => {
    settle = (result) => {
      if (settled) return;
      settled = true;
      if ('url' in result) resolve(result.url);
      else reject(result.error);
      shutDown();
    };
  });
  // Nobody may ever call redirect(): a rejection then is not a crash.
  outcome.catch(() => undefined);

  const inFlight = new Map<Socket, number>();
  const server = createServer((req, res) => {
    inFlight.set(req.socket, (inFlight.get(req.socket) ?? 0) + 1);
    res.once('close', () => {
      const left = (inFlight.get(req.socket) ?? 1) - 1;
      inFlight.set(req.socket, left);
      if (settled && left === 0) req.socket.destroy();
    });
    answer(req, res);
  });
  server.on('connection', (socket: Socket) => {
    inFlight.set(socket, 0);
    socket.once('close', () => inFlight.delete(socket));
    if (settled) socket.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const redirectUri = `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
  const closed = new Promise<void>((resolve) => server.once('close', () => resolve()));

  const timer = setTimeout(() => {
    const error = new RequestTimeoutError(timeoutMs);
    error.message = `No authorization callback reached ${redirectUri} within ${timeoutMs} ms`;
    settle({ error });
  }, timeoutMs);

  function shutDown(): void {
    clearTimeout(timer);
    server.close();
    // Idle connections go now; one still answering goes when its last response is sent.
    for (const [socket, count] of inFlight) if (count === 0) socket.destroy();
  }

  function answer(req: IncomingMessage, res: ServerResponse): void {
    // A request target that is not a valid URL reference (the parser lets some through) is a 400.
    let target: URL;
    try {
      target = new URL(req.url ?? '/', redirectUri);
    } catch {
      return plain(res, 400, 'Bad request');
    }
    if (target.pathname !== path) return plain(res, 404, 'Not found');
    if (req.method !== 'GET') {
      res.setHeader('allow', 'GET');
      return plain(res, 405, 'Method not allowed');
    }
    if (!waiting && !settled) return plain(res, 409, 'No authorization is in progress');
    // A forged callback (an error=access_denied first, say) would otherwise fail the real login.
    if (!carriesState(target, expectedState)) {
      return plain(res, 400, 'This callback is not for the authorization in progress');
    }
    const failed = target.searchParams.has('error');
    page(res, failed ? 'Authorization failed' : 'Authorization complete', failed);
    // The origin is the listener's own, whatever Host header the request carried.
    if (!settled) settle({ url: new URL(`${target.pathname}${target.search}`, redirectUri) });
  }

  const redirect: AuthorizationRedirect = (authorizationUrl, signal) => {
    if (waiting) {
      return Promise.reject(
        new LocalError('This loopback listener has been used: create one per authorization'),
      );
    }
    // Timed out or closed before anyone waited: that is the answer.
    if (settled) return outcome;
    waiting = true;
    if (signal.aborted) settle({ error: new RequestAbortedError({ cause: signal.reason }) });
    const onAbort = (): void => settle({ error: new RequestAbortedError({ cause: signal.reason }) });
    signal.addEventListener('abort', onAbort, { once: true });
    void outcome.then(
      () => signal.removeEventListener('abort', onAbort),
      () => signal.removeEventListener('abort', onAbort),
    );
    if (!settled) launch(authorizationUrl);
    return outcome;
  };

  function launch(authorizationUrl: URL): void {
    if (authorizationUrl.protocol !== 'https:' && authorizationUrl.protocol !== 'http:') {
      settle({
        error: new LocalError(
          `Refusing to open a ${authorizationUrl.protocol} authorization URL: only http(s)`,
        ),
      });
      return;
    }
    expectedState = soleValue(authorizationUrl.searchParams, 'state');
    if (expectedState === undefined) {
      // Without it any callback would do; the message names the problem, never the values.
      settle({
        error: new LocalError(
          'The authorization URL must carry exactly one non-empty state parameter: the loopback listener accepts only the callback that returns it',
        ),
      });
      return;
    }
    const failed = (error: unknown): void => {
      if (settled) return;
      if (!onBrowserError) {
        settle({
          error: new LocalError('Could not open the browser for the authorization URL', { cause: error }),
        });
        return;
      }
      try {
        onBrowserError(error, authorizationUrl);
      } catch (hookError) {
        settle({ error: new LocalError('onBrowserError threw', { cause: hookError }) });
      }
    };
    try {
      void Promise.resolve(open(authorizationUrl)).catch(failed);
    } catch (error) {
      failed(error);
    }
  }

  const close = async (): Promise<void> => {
    settle({
      error: new LocalError(
        `The loopback listener ${redirectUri} was closed before the authorization callback`,
      ),
    });
    server.closeAllConnections();
    await closed;
  };

  return { redirectUri, redirect, close };
}

/** The one non-empty value of `name`, or undefined when it is missing, empty or repeated. */
function soleValue(params: URLSearchParams, name: string): string | undefined {
  const values = params.getAll(name);
  return values.length === 1 && values[0] !== '' ? values[0] : undefined;
}

/** Exact match (the state is not a secret worth a constant-time compare: it is in the browser's URL). */
function carriesState(callback: URL, expected: string | undefined): boolean {
  return expected !== undefined && soleValue(callback.searchParams, 'state') === expected;
}
