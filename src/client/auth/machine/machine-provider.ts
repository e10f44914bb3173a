/**
 * The `HttpAuthProvider` both machine grants share: it knows nothing of how a token is obtained
 * (that is `obtain`), only when. No token until the server first refuses (the 401 names where
 * discovery starts); then one token, cached until it expires; a 401 gets one new token, but a 401
 * for the token just issued after a refusal gives up (no loop); a 403 `insufficient_scope` asks
 * for the union of the scopes so far and the challenged ones, at most {@link MAX_STEP_UPS} times
 * (then `step-up-limit`). One token request at a time: concurrent refusals share it.
 */
import type { AuthChallenge, HttpAuthProvider } from '../../../core/auth.js';
import { AuthorizationError } from '../errors.js';
import { parseBearerChallenge, type BearerChallenge } from '../www-authenticate.js';
import { unionScopes } from './scopes.js';
import type { IssuedToken } from './token-endpoint.js';
import type { ProtectedResource } from './protected-resource.js';

/** Step-up attempts after a 403 `insufficient_scope` before the provider gives up. */
export const MAX_STEP_UPS = 3;

/**
 * A token is renewed this long before its `expires_in` says it ends (clock skew, transit), or
 * halfway through its life when that is shorter (a 20 s token must not be renewed on every use).
 */
const EXPIRY_MARGIN_MS = 30_000;

/**
 * How a grant gets a token for `resource` with `scope` (undefined: send no scope).
 *
 * @example
 * const obtain: ObtainToken = (target, scope, signal) => requestToken(tokenRequest(target, scope), {}, signal);
 */
export type ObtainToken = (
  target: ProtectedResource,
  scope: string | undefined,
  signal: AbortSignal,
) => Promise<IssuedToken>;

/**
 * Finds the protected resource's authorization server, from the server's refusal.
 *
 * @example
 * const fixed: DiscoverResource = async () => ({ resource: 'https://mcp.example.com/mcp', authorizationServer: as });
 */
export type DiscoverResource = (challenge: AuthChallenge, signal: AbortSignal) => Promise<ProtectedResource>;

interface CachedToken {
  readonly token: IssuedToken;
  /** The scope this token was requested with. */
  readonly scope: string | undefined;
  /** Obtained because the server refused the previous one (or had none): a 401 for it is final. */
  readonly fromRefusal: boolean;
  /** When it arrived (ms since the epoch). */
  readonly obtainedAt: number;
  /** How many requests were sent with it. */
  uses: number;
}

/**
 * Builds the provider around a grant.
 *
 * @example
 * const auth = machineProvider(discover, (target, scope, signal) => requestClientCredentials(target, scope, signal));
 */
export function machineProvider(discover: DiscoverResource, obtain: ObtainToken): HttpAuthProvider {
  let target: ProtectedResource | undefined;
  let current: CachedToken | undefined;
  let inflight: Promise<void> | undefined;
  let stepUps = 0;

  /** Runs `fetchToken` unless one is running, in which case everyone waits for that one. */
  function renew(
    fetchToken: (signal: AbortSignal) => Promise<CachedToken>,
    signal: AbortSignal,
  ): Promise<void> {
    // The shared work is not tied to the first caller's signal (its abort must not fail the
    // others); each token request is bounded by its own timeout instead.
    inflight ??= fetchToken(new AbortController().signal).then(
      (next) => {
        current = next;
      },
      (error: unknown) => {
        current = undefined;
        throw error;
      },
    );
    const shared = inflight;
    void shared.then(
      () => void (inflight === shared && (inflight = undefined)),
      () => void (inflight === shared && (inflight = undefined)),
    );
    return abortable(shared, signal);
  }

  async function fetchFor(scope: string | undefined, fromRefusal: boolean, signal: AbortSignal) {
    // Unreachable: renewals before the first refusal only happen with a target.
    if (!target) throw new AuthorizationError('discovery', 'no authorization server known yet');
    const token = await obtain(target, scope, signal);
    return { token, scope, fromRefusal, obtainedAt: Date.now(), uses: 0 } satisfies CachedToken;
  }

  return {
    async authorization(_url, signal) {
      // A renewal that fails fails its own caller; this request goes on without a token.
      if (inflight) await abortable(inflight, signal).catch(() => signal.throwIfAborted());
      if (current && isExpired(current) && target) {
        const scope = current.scope;
        // Expired, not refused: the next token is not "fresh after a refusal".
        await renew((shared) => fetchFor(scope, false, shared), signal);
      }
      if (!current) return undefined;
      current.uses += 1;
      return `Bearer ${current.token.accessToken}`;
    },

    async challenge(challenge, signal) {
      const bearer: Partial<BearerChallenge> = parseBearerChallenge(challenge.wwwAuthenticate) ?? {};
      if (challenge.status === 403 && bearer.error !== 'insufficient_scope') return false;
      // Requests refused together share one renewal and count as one attempt.
      if (inflight) {
        await abortable(inflight, signal);
        return true;
      }
      const refused = current;
      if (challenge.status === 403) {
        if (stepUps >= MAX_STEP_UPS) {
          throw new AuthorizationError(
            'step-up-limit',
            `${challenge.url.origin} still wants more scope after ${MAX_STEP_UPS} step-ups${bearer.scope ? ` (asks for "${bearer.scope}")` : ''}`,
          );
        }
        stepUps += 1;
      } else if (refused?.fromRefusal && refused.uses <= 1) {
        // The token obtained for the previous refusal was refused too: asking again would loop.
        // Give up (the request fails with the server's 401) and start over on the next request.
        current = undefined;
        return false;
      } else {
        stepUps = 0;
      }
      await renew(async (shared) => {
        target ??= await discover(challenge, shared);
        const scope =
          challenge.status === 403
            ? unionScopes(refused?.scope, bearer.scope)
            : (bearer.scope ?? refused?.scope ?? defaultScope(target));
        return fetchFor(scope, true, shared);
      }, signal);
      return true;
    },
  };
}

function defaultScope(target: ProtectedResource): string | undefined {
  return target.scopesSupported?.length ? target.scopesSupported.join(' ') : undefined;
}

function isExpired({ token, obtainedAt }: CachedToken): boolean {
  if (token.expiresAt === undefined) return false;
  const margin = Math.min(EXPIRY_MARGIN_MS, (token.expiresAt - obtainedAt) / 2);
  return Date.now() >= token.expiresAt - margin;
}

/** Waits for `promise`, or rejects when `signal` aborts (the shared work goes on for the others). */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
