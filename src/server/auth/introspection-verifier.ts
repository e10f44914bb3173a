/**
 * Opaque (or any) access tokens checked by the authorization server: RFC 7662 introspection.
 */
import type { AuthInfo } from '../../core/auth.js';
import { oauthBasicAuthorization } from '../../core/oauth-basic.js';
import { boundedFetch } from './bounded-fetch.js';
import { InvalidTokenError, TokenVerifierUnavailableError } from './errors.js';
import { IntrospectionCache } from './introspection-cache.js';
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
  }

  async verify(token: string, signal?: AbortSignal): Promise<AuthInfo> {
    const cached = await this.cache?.get(token);
    if (cached) return cached;
    const claims = await this.introspect(token, signal);
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
    const auth = authInfoOf(claims, this.options.issuer);
    await this.cache?.set(token, auth);
    return auth;
  }

  private async introspect(token: string, signal: AbortSignal | undefined): Promise<Record<string, unknown>> {
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
      signal,
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
