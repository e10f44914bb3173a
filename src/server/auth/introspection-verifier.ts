/**
 * Opaque (or any) access tokens checked by the authorization server: RFC 7662 introspection.
 */
import type { AuthInfo } from '../../core/auth.js';
import { untilAborted } from '../../core/until-aborted.js';
import { oauthBasicAuthorization } from '../../core/oauth-basic.js';
import { boundedFetch } from './bounded-fetch.js';
import { InvalidTokenError, TokenVerifierUnavailableError } from './errors.js';
import { IntrospectionCache, tokenDigest } from './introspection-cache.js';
import { scopesOf } from './jwt-verifier.js';
import type { TokenVerifier } from './token-verifier.js';

/**
 * @example
 * const options: IntrospectionVerifierOptions = {
 *   endpoint: 'https://auth.example.com/introspect',
 *   clientId: 'mcp-server', clientSecret: process.env.INTROSPECTION_SECRET!,
 *   audience: 'https://mcp.example.com/mcp',
 * };
 */
export interface IntrospectionVerifierOptions {
  /** The introspection endpoint. */
  endpoint: string | URL;
  /** This resource server's client credentials at the authorization server (sent with HTTP Basic). */
  clientId: string;
  clientSecret: string;
  /** This server's resource URL: the response's `aud` must contain it. */
  audience: string;
  /**
   * Refuse an answer without `aud` (default true). `false` accepts one, which is weaker: a token
   * the same authorization server issued for another resource then passes here too. Only for an
   * authorization server that never returns `aud` and issues tokens for this resource alone.
   */
  requireAudience?: boolean;
  /**
   * When set and the response has `iss`, it must be exactly this; an answer without `iss` is
   * taken as from this issuer (`AuthInfo.issuer`).
   */
  issuer?: string;
  /**
   * Remember active tokens for a while (never past their `exp`), so each request does not cost an
   * introspection call. A revoked token stays accepted up to `ttlMs`. Default: off.
   */
  cache?: { ttlMs?: number; maxEntries?: number };
  /**
   * Remember refused tokens briefly (keyed by a digest of the token), so a client repeating one
   * bogus token costs one introspection call per `ttlMs`, not one per request. Default
   * `{ ttlMs: 10_000, maxEntries: 1_000 }`; `false` turns it off. Only refusals of the token
   * (401) are kept, never an endpoint failure (503); a token not valid yet is kept until its `nbf`
   * at most.
   */
  refusalCache?: { ttlMs?: number; maxEntries?: number } | false;
  /** Time allowed for one introspection call, in ms. Default 5,000. */
  timeoutMs?: number;
}

/**
 * Verifies tokens by asking the authorization server (RFC 7662): `active` must be true, `aud`
 * must include this resource (unless `requireAudience: false`), `exp` (when present) must be in the future. An
 * endpoint that is down or refuses our credentials is `TokenVerifierUnavailableError` (503).
 *
 * @example
 * const verifier = new IntrospectionVerifier({
 *   endpoint: 'https://auth.example.com/introspect',
 *   clientId: 'mcp-server', clientSecret: secret,
 *   audience: 'https://mcp.example.com/mcp',
 *   cache: { ttlMs: 30_000 },
 * });
 */
export class IntrospectionVerifier implements TokenVerifier {
  private readonly endpoint: URL;
  private readonly authorization: string;
  private readonly cache: IntrospectionCache | undefined;
  private readonly refusals: IntrospectionCache<Refusal> | undefined;
  /** Checks under way, by token digest: concurrent requests with one token share one call. */
  private readonly inflight = new Map<string, Promise<AuthInfo>>();

  /** The audience tokens must name: this server's resource URL (checked against `auth.resource`). */
  get audience(): string {
    return this.options.audience;
  }

  /** The issuer answers are credited to when they carry no `iss` (checked at start against the listed servers). */
  get issuer(): string | undefined {
    return this.options.issuer;
  }

  constructor(private readonly options: IntrospectionVerifierOptions) {
    this.endpoint = new URL(options.endpoint);
    if (!options.clientId || typeof options.clientSecret !== 'string') {
      throw new TypeError('IntrospectionVerifier: clientId and clientSecret are required');
    }
    if (typeof options.audience !== 'string' || options.audience === '') {
      throw new TypeError("IntrospectionVerifier: audience (this server's resource URL) is required");
    }
    this.authorization = oauthBasicAuthorization(options.clientId, options.clientSecret);
    this.cache =
      options.cache &&
      new IntrospectionCache(options.cache.ttlMs ?? 30_000, options.cache.maxEntries ?? 1_000);
    const refusals = options.refusalCache ?? {};
    this.refusals =
      refusals === false
        ? undefined
        : new IntrospectionCache<Refusal>(refusals.ttlMs ?? 10_000, refusals.maxEntries ?? 1_000);
  }

  async verify(token: string, signal?: AbortSignal): Promise<AuthInfo> {
    const key = await tokenDigest(token);
    const cached = this.cache?.get(key);
    if (cached) return cached;
    const refused = this.refusals?.get(key);
    if (refused) throw new InvalidTokenError(refused.message);
    let pending = this.inflight.get(key);
    if (!pending) {
      // The shared call belongs to no caller (one giving up must not fail the others); it is
      // bounded by the verifier's own timeout, and each caller stops waiting on its own signal.
      pending = this.check(token, key).finally(() => this.inflight.delete(key));
      this.inflight.set(key, pending);
    }
    return signal ? untilAborted(pending, signal) : pending;
  }

  private async check(token: string, key: string): Promise<AuthInfo> {
    const claims = await this.introspect(token);
    let auth: AuthInfo;
    try {
      auth = this.judge(claims);
    } catch (error) {
      if (error instanceof InvalidTokenError) {
        // A refusal holds for the cache's own window, except that a token not valid *yet* must
        // be looked at again once it is (a past `nbf`, as most answers carry, bounds nothing).
        const nbf = claims.nbf;
        const expiresAt = typeof nbf === 'number' && nbf * 1000 > Date.now() ? nbf : undefined;
        this.refusals?.set(key, { message: error.message, expiresAt });
      }
      throw error;
    }
    this.cache?.set(key, auth);
    return auth;
  }

  /** The introspection answer as an AuthInfo, or InvalidTokenError saying what is wrong with it. */
  private judge(claims: Record<string, unknown>): AuthInfo {
    if (claims.active !== true) throw new InvalidTokenError('The token is not active');
    if (claims.aud === undefined) {
      if (this.options.requireAudience !== false) {
        throw new InvalidTokenError('The token names no audience (aud)');
      }
    } else {
      const audiences =
        typeof claims.aud === 'string' ? [claims.aud] : Array.isArray(claims.aud) ? claims.aud : [];
      if (!audiences.includes(this.options.audience)) {
        throw new InvalidTokenError('The token is for another audience (aud)');
      }
    }
    if (this.options.issuer !== undefined && claims.iss !== undefined && claims.iss !== this.options.issuer) {
      throw new InvalidTokenError('The token is from another issuer (iss)');
    }
    const now = Date.now() / 1000;
    if (typeof claims.exp === 'number' && claims.exp <= now)
      throw new InvalidTokenError('The token has expired');
    if (typeof claims.nbf === 'number' && claims.nbf > now)
      throw new InvalidTokenError('The token is not valid yet (nbf)');
    return authInfoOf(claims, this.options.issuer);
  }

  private async introspect(token: string): Promise<Record<string, unknown>> {
    const response = await boundedFetch(
      this.endpoint,
      {
        method: 'POST',
        headers: {
          authorization: this.authorization,
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
        },
        body: new URLSearchParams({ token, token_type_hint: 'access_token' }).toString(),
      },
      this.options.timeoutMs ?? 5_000,
    );
    if (response.status !== 200) {
      throw new TokenVerifierUnavailableError(`The introspection endpoint answered ${response.status}`);
    }
    let body: unknown;
    try {
      body = await response.json();
    } catch {
      throw new TokenVerifierUnavailableError('The introspection endpoint answered with no JSON');
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw new TokenVerifierUnavailableError('The introspection endpoint answered with no JSON object');
    }
    return body as Record<string, unknown>;
  }
}

function authInfoOf(claims: Record<string, unknown>, issuer: string | undefined): AuthInfo {
  const auth: { -readonly [K in keyof AuthInfo]: AuthInfo[K] } = { scopes: scopesOf(claims), claims };
  if (typeof claims.sub === 'string') auth.subject = claims.sub;
  if (typeof claims.client_id === 'string') auth.clientId = claims.client_id;
  if (typeof claims.iss === 'string') auth.issuer = claims.iss;
  else if (issuer !== undefined) auth.issuer = issuer;
  if (typeof claims.aud === 'string') auth.audience = [claims.aud];
  else if (Array.isArray(claims.aud))
    auth.audience = claims.aud.filter((a): a is string => typeof a === 'string');
  if (typeof claims.exp === 'number') auth.expiresAt = claims.exp;
  return auth;
}

/** A remembered refusal: its message, and the token's `nbf` when it may become valid then. */
interface Refusal {
  readonly message: string;
  readonly expiresAt: number | undefined;
}
