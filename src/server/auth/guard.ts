/**
 * The resource server's check of one HTTP request: the bearer token (before the body is read) and
 * the scopes the request's JSON-RPC method needs (after). It answers in neutral terms (status,
 * challenge, message); the HTTP handler turns that into its reply.
 */
import type { AuthInfo } from '../../core/auth.js';
import type { Logger } from '../../core/engine/connection.js';
import { bearerChallenge, dpopChallenge, parseAuthorization } from './challenge.js';
import { DPoPProofChecker, type DPoPFailure } from './dpop-proof.js';
import { InvalidTokenError, TokenVerifierUnavailableError } from './errors.js';
import { protectedResourceMetadataLocations } from './metadata.js';
import { checkResource, checkScopes, type ResourceServerOptions } from './options.js';
import { freezeAuthInfo } from './auth-info.js';

/**
 * Why a request was refused. `message` goes into the JSON-RPC error body; like the challenge it
 * never holds the token.
 *
 * @example
 * const refusal: AuthRefusal = { status: 401, wwwAuthenticate: 'Bearer resource_metadata="…"', message: 'Authorization required' };
 */
export interface AuthRefusal {
  readonly status: 400 | 401 | 403 | 500 | 503;
  readonly wwwAuthenticate?: string;
  readonly message: string;
  /** More response headers (a DPoP `DPoP-Nonce`). */
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * What the guard reads of a request besides its `Authorization` header: the method and the
 * `DPoP` proof header (null: absent), for DPoP-bound tokens.
 *
 * @example
 * await guard.authenticate(header, logger, { method: 'POST', dpop: request.headers.get('dpop') });
 */
export interface GuardedRequest {
  readonly method: string;
  readonly dpop: string | null;
}

/**
 * The outcome of {@link ResourceGuard.authenticate}: the verified caller, or the refusal to send.
 *
 * @example
 * const checked: AuthCheck = await guard.authenticate(header, logger);
 * if ('refusal' in checked) return reply(checked.refusal);
 */
export type AuthCheck = { readonly auth: AuthInfo } | { readonly refusal: AuthRefusal };

/**
 * The checks of one protected endpoint, built once from its {@link ResourceServerOptions}.
 *
 * @example
 * const guard = new ResourceGuard(options);
 * const checked = await guard.authenticate(request.headers.get('authorization'), logger);
 */
export class ResourceGuard {
  /** The path-based metadata URL every challenge points to. */
  readonly metadataUrl: string;
  private readonly requiredScopes: readonly string[];
  /** 401 for a request without a token: built once. */
  private readonly unauthorized: AuthRefusal;
  /** With the `dpop` option: the proof checks. */
  private readonly dpop: DPoPProofChecker | undefined;

  constructor(readonly options: ResourceServerOptions) {
    checkResource(options.resource);
    if (!Array.isArray(options.authorizationServers) || options.authorizationServers.length === 0) {
      throw new TypeError('auth.authorizationServers must list at least one issuer URL');
    }
    if (typeof options.verifier?.verify !== 'function') {
      throw new TypeError('auth.verifier must be a TokenVerifier');
    }
    // Clients ask for tokens for `resource` (RFC 8707): a verifier checking another audience
    // would refuse every one of them, so fail at start rather than at the first client.
    const audience = (options.verifier as { readonly audience?: unknown }).audience;
    if (typeof audience === 'string' && audience !== options.resource) {
      throw new TypeError(
        `auth.verifier checks the audience ${JSON.stringify(audience)}, but auth.resource is ${JSON.stringify(options.resource)}: they must be the same URL`,
      );
    }
    // A verifier that may report no issuer (introspection answers need not carry `iss`), with
    // several servers listed, leaves callers impossible to tell apart: refuse it now, not per request.
    const verifier = options.verifier as { readonly issuer?: unknown };
    if ('issuer' in verifier && verifier.issuer === undefined && options.authorizationServers.length > 1) {
      throw new TypeError(
        'auth.verifier names no issuer while several authorizationServers are listed: give the verifier the issuer it checks tokens of',
      );
    }
    const supported = options.scopesSupported && checkScopes(options.scopesSupported, 'auth.scopesSupported');
    this.requiredScopes = options.requiredScopes
      ? checkScopes(options.requiredScopes, 'auth.requiredScopes')
      : [];
    this.metadataUrl = protectedResourceMetadataLocations(options.resource).pathBased;
    const scopes = this.requiredScopes.length > 0 ? this.requiredScopes : supported;
    if (options.dpop)
      this.dpop = new DPoPProofChecker(options.dpop === true ? {} : options.dpop, options.resource);
    const params = {
      resource_metadata: this.metadataUrl,
      scope: scopes && scopes.length > 0 ? scopes.join(' ') : undefined,
    };
    // RFC 9449 §7.1: a server taking both schemes challenges with both; DPoP's names its algorithms.
    const dpopOffer = this.dpop && dpopChallenge({ algs: this.dpop.algorithms.join(' '), ...params });
    this.unauthorized = Object.freeze({
      status: 401,
      wwwAuthenticate: this.dpop?.required
        ? dpopOffer!
        : [bearerChallenge(params), dpopOffer].filter(Boolean).join(', '),
      message: `Unauthorized: a ${this.dpop?.required ? 'DPoP' : 'Bearer'} access token is required`,
    });
  }

  /**
   * Check the `Authorization` header (null: absent). Never rejects; a verifier fault is logged
   * (with the token masked) and answered with 500.
   */
  async authenticate(header: string | null, logger: Logger, request?: GuardedRequest): Promise<AuthCheck> {
    const parsed = parseAuthorization(header);
    switch (parsed.kind) {
      case 'none':
        return { refusal: this.unauthorized };
      case 'dpop':
        if (this.dpop) break;
        return { refusal: this.unauthorized };
      case 'bearer':
        if (this.dpop?.required) {
          return { refusal: this.dpopRefusal('invalid_token', 'This resource requires a DPoP-bound token') };
        }
        break;
      case 'other-scheme':
        // Credentials of another kind are no bearer credentials: the plain challenge, with no
        // error code (RFC 6750 §3.1), so the client can discover how to get a Bearer token.
        return { refusal: this.unauthorized };
      case 'malformed':
        return { refusal: this.challenge(400, 'invalid_request', parsed.reason) };
    }
    const token = parsed.token;
    let proof: { readonly jkt: string; readonly jti: string } | undefined;
    if (parsed.kind === 'dpop') {
      // The proof first: it is cheap to check and spares the verifier tokens sent with junk.
      const checked = await this.dpop!.check(request?.dpop ?? null, request?.method ?? 'POST', token);
      if ('error' in checked) return { refusal: this.dpopFailure(checked) };
      proof = checked;
    }
    let auth: AuthInfo;
    try {
      auth = freezeAuthInfo(await this.options.verifier.verify(token));
    } catch (error) {
      if (error instanceof InvalidTokenError) {
        return { refusal: this.challenge(401, 'invalid_token', masked(error.message, token)) };
      }
      if (error instanceof TokenVerifierUnavailableError) {
        logger.error(`Token verification unavailable: ${masked(error.message, token)}`);
        return {
          refusal: { status: 503, message: 'Service unavailable: the access token cannot be verified now' },
        };
      }
      const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      logger.error(`Token verifier failed: ${masked(text, token)}`);
      return { refusal: { status: 500, message: 'Internal server error' } };
    }
    if (this.dpop) {
      const refusal = this.bindingRefusal(auth, proof?.jkt);
      if (refusal) return { refusal };
      if (proof && !this.dpop.firstUse(proof.jkt, proof.jti)) {
        return { refusal: this.dpopRefusal('invalid_dpop_proof', 'The DPoP proof was already used (jti)') };
      }
    }
    const identified = this.identified(auth, logger);
    if ('refusal' in identified) return identified;
    const refusal = this.scopeRefusal(identified.auth, this.requiredScopes);
    return refusal ? { refusal } : identified;
  }

  /**
   * Sessions, requestState and subscription quotas are bound to the caller's issuer-qualified
   * principal (`principalOf`), so a verified token must name someone: a subject or a client. The
   * issuer the verifier did not report is the only listed authorization server; with several
   * listed it cannot be known, which is a configuration fault (500), not the token's.
   */
  private identified(auth: AuthInfo, logger: Logger): AuthCheck {
    if (auth.subject === undefined && auth.clientId === undefined) {
      return { refusal: this.challenge(401, 'invalid_token', 'The token names no subject or client') };
    }
    if (auth.issuer !== undefined) return { auth };
    const servers = this.options.authorizationServers;
    if (servers.length === 1) return { auth: freezeAuthInfo({ ...auth, issuer: servers[0]! }) };
    logger.error(
      'Token verifier named no issuer while several authorization servers are listed: the caller cannot be told apart',
    );
    return { refusal: { status: 500, message: 'Internal server error' } };
  }

  /**
   * 403 `insufficient_scope` when `auth` lacks some of `needed`; the challenge's `scope` lists
   * what the client should ask for: the scopes it has plus the ones needed.
   */
  scopeRefusal(auth: AuthInfo, needed: readonly string[] | undefined): AuthRefusal | undefined {
    if (needed === undefined || needed.length === 0) return undefined;
    const granted = new Set(auth.scopes);
    const missing = needed.filter((scope) => !granted.has(scope));
    if (missing.length === 0) return undefined;
    const wanted = [...new Set([...auth.scopes, ...needed])].join(' ');
    return {
      status: 403,
      wwwAuthenticate: bearerChallenge({
        error: 'insufficient_scope',
        scope: wanted,
        resource_metadata: this.metadataUrl,
        error_description: `Missing scope: ${missing.join(' ')}`,
      }),
      message: `Forbidden: insufficient scope (missing ${missing.join(' ')})`,
    };
  }

  /**
   * RFC 9449 §7: a token bound to a key (`cnf.jkt`) needs the DPoP scheme and a proof of that
   * key; the DPoP scheme needs a bound token.
   */
  private bindingRefusal(auth: AuthInfo, jkt: string | undefined): AuthRefusal | undefined {
    const cnf = auth.claims?.cnf;
    const bound =
      typeof cnf === 'object' && cnf !== null ? (cnf as { readonly jkt?: unknown }).jkt : undefined;
    if (jkt === undefined) {
      return bound === undefined
        ? undefined
        : this.dpopRefusal(
            'invalid_token',
            'The token is DPoP-bound: send it with the DPoP scheme and a proof',
          );
    }
    if (typeof bound !== 'string') return this.dpopRefusal('invalid_token', 'The token is not DPoP-bound');
    if (bound !== jkt) {
      return this.dpopRefusal(
        'invalid_dpop_proof',
        'The DPoP proof is signed by another key than the token is bound to',
      );
    }
    return undefined;
  }

  private dpopFailure(failure: DPoPFailure): AuthRefusal {
    const refusal = this.dpopRefusal(failure.error, failure.description);
    return failure.nonce === undefined ? refusal : { ...refusal, headers: { 'dpop-nonce': failure.nonce } };
  }

  private dpopRefusal(error: string, description: string): AuthRefusal {
    return {
      status: 401,
      wwwAuthenticate: dpopChallenge({
        error,
        error_description: description,
        algs: this.dpop!.algorithms.join(' '),
        resource_metadata: this.metadataUrl,
      }),
      message: `Unauthorized: ${description}`,
    };
  }

  private challenge(status: 400 | 401, error: string, description: string): AuthRefusal {
    return {
      status,
      wwwAuthenticate: bearerChallenge({
        error,
        error_description: description,
        resource_metadata: this.metadataUrl,
      }),
      message: `${status === 400 ? 'Bad Request' : 'Unauthorized'}: ${description}`,
    };
  }
}

/** `text` with every occurrence of the token masked: a verifier's message must not leak it. */
function masked(text: string, token: string): string {
  return text.split(token).join('[token]');
}
