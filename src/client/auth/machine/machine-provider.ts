/**
 * The `HttpAuthProvider` both machine grants share: it knows nothing of how a token is obtained
 * (that is `obtain`), only when. No token until the server first refuses (the 401 names where
 * discovery starts); then one token, cached until it expires; a 401 gets one new token, but a 401
 * for the token just issued after a refusal gives up (no loop); a 403 `insufficient_scope` asks
 * for the union of the scopes so far and the challenged ones, at most {@link MAX_STEP_UPS} times
 * (then `step-up-limit`). One token request at a time: concurrent refusals share it.
 */
import type { AuthChallenge, HttpAuthProvider } from '../../../core/auth.js';
import { AttemptCounter } from '../attempts.js';
import { AuthorizationError } from '../errors.js';
import { tokenExpired } from '../expiry.js';
import { ATTEMPT_WINDOW_MS } from '../provider-options.js';
import { FlightSlot } from '../single-flight.js';
import { parseBearerChallenge, type BearerChallenge } from '../www-authenticate.js';
import { unionScopes } from './scopes.js';
import type { IssuedToken } from './token-endpoint.js';
import type { ProtectedResource } from './protected-resource.js';
import type { DPoPSigner } from '../dpop.js';

/**
 * Step-up attempts for one request (within `ATTEMPT_WINDOW_MS`) after a 403 `insufficient_scope`
 * before it fails with `step-up-limit`.
 *
 * @example
 * if (error instanceof AuthorizationError && error.reason === 'step-up-limit') console.log(`gave up after ${MAX_STEP_UPS}`);
 */
export const MAX_STEP_UPS = 3;

/**
 * Default bound on one shared token step (discovery, IdP exchange and token request together).
 *
 * @example
 * clientCredentialsAuth({ issuer, credentials, flowTimeoutMs: DEFAULT_FLOW_TIMEOUT_MS / 2 });
 */
export const DEFAULT_FLOW_TIMEOUT_MS = 60_000;

/**
 * The authorization server the client's credentials belong to (2026-07-28 "Authorization Server
 * Binding"): its issuer identifier exactly as its metadata publishes it, or a predicate for the
 * discovered issuer. Nothing is sent to a token endpoint of another issuer.
 *
 * @example
 * const binding: IssuerBinding = 'https://auth.example.com';
 */
export type IssuerBinding = string | ((issuer: string) => boolean);

/**
 * Throws a TypeError when `binding` is missing or empty (`name` is the grant, for the message).
 *
 * @example
 * assertIssuerBinding('clientCredentialsAuth', options.issuer);
 */
export function assertIssuerBinding(name: string, binding: IssuerBinding | undefined): void {
  if (typeof binding === 'function') return;
  if (typeof binding !== 'string' || binding === '') {
    throw new TypeError(`${name}: issuer is required (the authorization server the credentials belong to)`);
  }
}

/**
 * How the provider binds and bounds its work.
 *
 * @example
 * machineProvider(discover, obtain, { issuer: 'https://auth.example.com', flowTimeoutMs: 30_000 });
 */
export interface MachineProviderOptions {
  readonly issuer: IssuerBinding;
  /** Bound on one shared token step, discovery included (default {@link DEFAULT_FLOW_TIMEOUT_MS}). */
  readonly flowTimeoutMs?: number;
  /** With DPoP: DPoP-bound tokens go out with a proof of its key; its nonces are handled. */
  readonly dpop?: DPoPSigner;
}

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
 * const auth = machineProvider(discover, (target, scope, signal) => requestClientCredentials(target, scope, signal), { issuer });
 */
export function machineProvider(
  discover: DiscoverResource,
  obtain: ObtainToken,
  options: MachineProviderOptions,
): HttpAuthProvider {
  let target: ProtectedResource | undefined;
  let current: CachedToken | undefined;
  const timeoutMs = options.flowTimeoutMs ?? DEFAULT_FLOW_TIMEOUT_MS;
  // The shared work is not tied to one caller's signal (its abort must not fail the others), but
  // it is bounded as a whole: a metadata or token server that never answers must not pin every
  // later request behind it.
  const flight = new FlightSlot<void>({
    timeoutMs,
    timeoutError: () => new AuthorizationError('token', `no token within ${timeoutMs} ms`),
  });
  const stepUps = new AttemptCounter(MAX_STEP_UPS, ATTEMPT_WINDOW_MS);

  /** Runs `fetchToken` unless one is running, in which case everyone waits for that one. */
  function renew(
    fetchToken: (signal: AbortSignal) => Promise<CachedToken>,
    signal: AbortSignal,
  ): Promise<void> {
    return flight.join(signal, async (shared) => {
      try {
        const next = await fetchToken(shared);
        // A flight that timed out or was abandoned has been replaced: its late outcome is dropped.
        if (!shared.aborted) current = next;
      } catch (error) {
        if (!shared.aborted) current = undefined;
        throw error;
      }
    });
  }

  async function fetchFor(scope: string | undefined, fromRefusal: boolean, signal: AbortSignal) {
    // Unreachable: renewals before the first refusal only happen with a target.
    if (!target) throw new AuthorizationError('discovery', 'no authorization server known yet');
    const token = await obtain(target, scope, signal);
    return { token, scope, fromRefusal, obtainedAt: Date.now(), uses: 0 } satisfies CachedToken;
  }

  async function bound(challenge: AuthChallenge, signal: AbortSignal): Promise<ProtectedResource> {
    const found = await discover(challenge, signal);
    const issuer = found.authorizationServer.issuer;
    const accepted = typeof options.issuer === 'string' ? issuer === options.issuer : options.issuer(issuer);
    if (!accepted) {
      throw new AuthorizationError(
        'issuer-mismatch',
        `${challenge.url.origin} names the authorization server ${issuer}, not ${typeof options.issuer === 'string' ? options.issuer : 'the one'} the credentials are for; no token requested`,
      );
    }
    return found;
  }

  /** The token for the next request (renewed first when expired), counted as used, or undefined. */
  async function next(signal: AbortSignal): Promise<IssuedToken | undefined> {
    // A renewal that fails fails its own caller; this request goes on without a token.
    await flight.current?.wait(signal).catch(() => signal.throwIfAborted());
    if (current && isExpired(current) && target) {
      const scope = current.scope;
      // Expired, not refused: the next token is not "fresh after a refusal".
      await renew((shared) => fetchFor(scope, false, shared), signal);
    }
    if (!current) return undefined;
    current.uses += 1;
    return current.token;
  }

  const dpop = options.dpop;
  const provider: HttpAuthProvider = {
    async authorization(_url, signal) {
      const token = await next(signal);
      return token && `${token.dpop ? 'DPoP' : 'Bearer'} ${token.accessToken}`;
    },

    async challenge(challenge, signal) {
      if (dpop?.nonceChallenge(challenge, signal)) return true;
      const bearer: Partial<BearerChallenge> = parseBearerChallenge(challenge.wwwAuthenticate) ?? {};
      if (challenge.status === 403 && bearer.error !== 'insufficient_scope') return false;
      // Requests refused together share one renewal and count as one attempt.
      const running = flight.current;
      if (running) {
        await running.wait(signal);
        return true;
      }
      const refused = current;
      if (challenge.status === 403) {
        // Counted per request (by its signal): other requests' step-ups do not use up its attempts.
        if (!stepUps.take(signal)) {
          throw new AuthorizationError(
            'step-up-limit',
            `${challenge.url.origin} still wants more scope after ${MAX_STEP_UPS} step-ups${bearer.scope ? ` (asks for "${bearer.scope}")` : ''}`,
          );
        }
      } else if (refused?.fromRefusal && refused.uses <= 1) {
        // The token obtained for the previous refusal was refused too: asking again would loop.
        // Give up (the request fails with the server's 401) and start over on the next request.
        current = undefined;
        return false;
      }
      await renew(async (shared) => {
        target ??= await bound(challenge, shared);
        const scope =
          challenge.status === 403
            ? unionScopes(refused?.scope, bearer.scope)
            : (bearer.scope ?? refused?.scope ?? defaultScope(target));
        return fetchFor(scope, true, shared);
      }, signal);
      return true;
    },
  };
  if (!dpop) return provider;
  return {
    ...provider,
    async headers(request, signal) {
      const token = await next(signal);
      if (!token) return {};
      if (!token.dpop) return { authorization: `Bearer ${token.accessToken}` };
      return dpop.requestHeaders(request.url, request.method, token.accessToken, signal);
    },
    answered(url, headers) {
      dpop.remember(url, headers);
    },
  };
}

function defaultScope(target: ProtectedResource): string | undefined {
  return target.scopesSupported?.length ? target.scopesSupported.join(' ') : undefined;
}

function isExpired({ token, obtainedAt }: CachedToken): boolean {
  return tokenExpired(token.expiresAt, obtainedAt, Date.now());
}
