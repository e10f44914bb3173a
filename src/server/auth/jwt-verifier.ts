/**
 * JWT access tokens (RFC 9068 and plain JWTs) checked against the issuer's JWKS with `jose`:
 * signature by an allowed asymmetric algorithm, issuer, audience, expiry, not-before.
 */
import type { createRemoteJWKSet, JWTPayload } from 'jose';
import type { AuthInfo } from '../../core/auth.js';
import { boundedFetch } from './bounded-fetch.js';
import { discoverJwksUri } from './issuer-metadata.js';
import { InvalidTokenError, TokenVerifierUnavailableError } from './errors.js';
import type { TokenVerifier } from './token-verifier.js';

/**
 * Asymmetric JWS algorithms accepted by default. `none` and the HMAC family (`HS*`) are never
 * accepted: a shared secret cannot come from a JWKS, and `HS256` "signed" with a public key is a
 * classic forgery.
 *
 * @example
 * new JwtVerifier({ issuer, audience, algorithms: DEFAULT_JWT_ALGORITHMS.filter((a) => a.startsWith('ES')) });
 */
export const DEFAULT_JWT_ALGORITHMS: readonly string[] = Object.freeze([
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
]);

/**
 * @example
 * const options: JwtVerifierOptions = { issuer: 'https://auth.example.com', audience: 'https://mcp.example.com/mcp' };
 */
export interface JwtVerifierOptions {
  /** The expected `iss`, exactly. */
  issuer: string;
  /** This server's resource URL: `aud` must contain it (RFC 8707). */
  audience: string;
  /**
   * The issuer's JWKS URL. Default: `jwks_uri` from its RFC 8414 metadata
   * (`/.well-known/oauth-authorization-server`, then OpenID Connect discovery), fetched on first use.
   */
  jwksUri?: string | URL;
  /** Allowed algorithms (asymmetric only). Default {@link DEFAULT_JWT_ALGORITHMS}. */
  algorithms?: readonly string[];
  /** Tolerated clock skew for `exp`, `nbf` and `iat`, in seconds. Default 30. */
  clockToleranceSeconds?: number;
  /**
   * Least time between two JWKS fetches caused by an unknown `kid` (key rotation), in ms.
   * Default 30,000.
   */
  jwksCooldownMs?: number;
  /** Time allowed for a JWKS or metadata fetch, in ms. Default 5,000. */
  timeoutMs?: number;
}

/** `typ` values of an access token: RFC 9068's, or a plain JWT (or none). */
const ACCEPTED_TYP = new Set(['at+jwt', 'application/at+jwt', 'jwt']);

/**
 * Verifies JWT access tokens against the issuer's JWKS. Keys are cached; a token signed with an
 * unknown `kid` refetches the set (at most once per `jwksCooldownMs`), so key rotation needs no
 * restart. Scopes come from `scope` (space-separated) or `scp` (array).
 *
 * @example
 * const verifier = new JwtVerifier({
 *   issuer: 'https://auth.example.com',
 *   audience: 'https://mcp.example.com/mcp',
 *   jwksUri: 'https://auth.example.com/jwks',
 * });
 * const auth = await verifier.verify(token);
 */
export class JwtVerifier implements TokenVerifier {
  private readonly algorithms: string[];
  private keys: Promise<ReturnType<typeof createRemoteJWKSet>> | undefined;

  /** The audience tokens must name: this server's resource URL (checked against `auth.resource`). */
  get audience(): string {
    return this.options.audience;
  }

  constructor(private readonly options: JwtVerifierOptions) {
    if (typeof options.issuer !== 'string' || options.issuer === '') {
      throw new TypeError('JwtVerifier: issuer is required');
    }
    if (typeof options.audience !== 'string' || options.audience === '') {
      throw new TypeError("JwtVerifier: audience (this server's resource URL) is required");
    }
    this.algorithms = [...(options.algorithms ?? DEFAULT_JWT_ALGORITHMS)];
    const refused = this.algorithms.filter((alg) => alg === 'none' || /^HS/i.test(alg) || !alg);
    if (refused.length > 0 || this.algorithms.length === 0) {
      throw new TypeError(
        `JwtVerifier: only asymmetric algorithms are allowed (refused: ${refused.join(', ')})`,
      );
    }
  }

  async verify(token: string, _signal?: AbortSignal): Promise<AuthInfo> {
    const keys = await this.keySet();
    const { jwtVerify, errors } = await loadJose();
    let payload: JWTPayload;
    let typ: string | undefined;
    try {
      const verified = await jwtVerify(token, keys, {
        issuer: this.options.issuer,
        audience: this.options.audience,
        algorithms: this.algorithms,
        clockTolerance: this.options.clockToleranceSeconds ?? 30,
        requiredClaims: ['exp'],
      });
      payload = verified.payload;
      typ = verified.protectedHeader.typ;
    } catch (error) {
      throw translate(error, errors);
    }
    if (typ !== undefined && !ACCEPTED_TYP.has(typ.toLowerCase())) {
      throw new InvalidTokenError('The token is not an access token (typ)');
    }
    const tolerance = this.options.clockToleranceSeconds ?? 30;
    if (typeof payload.iat === 'number' && payload.iat > Date.now() / 1000 + tolerance) {
      throw new InvalidTokenError('The token was issued in the future (iat)');
    }
    return authInfoOf(payload);
  }

  /** The remote key set, made once (after discovery when no `jwksUri` was given). */
  private keySet(): Promise<ReturnType<typeof createRemoteJWKSet>> {
    const make = async () => {
      const timeoutMs = this.options.timeoutMs ?? 5_000;
      const uri = this.options.jwksUri ?? (await discoverJwksUri(this.options.issuer, timeoutMs));
      const { createRemoteJWKSet, customFetch } = await loadJose();
      return createRemoteJWKSet(new URL(uri), {
        cooldownDuration: this.options.jwksCooldownMs ?? 30_000,
        // Our own bounded fetch (it ignores jose's signal and clears its timer when done); jose's
        // own timeout would leave a timer pending for its whole duration after every fetch, so
        // it is set to fire at once, unused.
        timeoutDuration: 0,
        [customFetch]: (url: string, init: RequestInit) => boundedFetch(new URL(url), init, timeoutMs),
      });
    };
    const keys = (this.keys ??= make());
    // A failed discovery is retried by the next request instead of failing forever.
    keys.catch(() => {
      if (this.keys === keys) this.keys = undefined;
    });
    return keys;
  }
}

/**
 * jose, loaded on first use: a server that never checks a JWT (stdio, an unprotected endpoint)
 * does not pay its import (~30 ms, a third of a cold start).
 */
let jose: Promise<typeof import('jose')> | undefined;
function loadJose(): Promise<typeof import('jose')> {
  return (jose ??= import('jose'));
}

/** jose's verdict as one of the two verifier errors: a bad token, or a key set out of reach. */
function translate(error: unknown, errors: typeof import('jose').errors): Error {
  if (error instanceof errors.JWKSTimeout) {
    return new TokenVerifierUnavailableError('The JWKS endpoint timed out', { cause: error });
  }
  if (error instanceof errors.JWTExpired) return new InvalidTokenError('The token has expired');
  if (error instanceof errors.JWTClaimValidationFailed) {
    return new InvalidTokenError(`The token's ${error.claim} claim is not acceptable`);
  }
  if (error instanceof errors.JOSEAlgNotAllowed)
    return new InvalidTokenError("The token's algorithm is not allowed");
  if (error instanceof errors.JWSSignatureVerificationFailed) {
    return new InvalidTokenError("The token's signature is invalid");
  }
  if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys) {
    return new InvalidTokenError('The token was not signed by a key of the issuer');
  }
  if (error instanceof errors.JWSInvalid || error instanceof errors.JWTInvalid) {
    return new InvalidTokenError('The token is malformed');
  }
  if (error instanceof errors.JOSENotSupported)
    return new InvalidTokenError('The token uses an unsupported algorithm');
  if (
    error instanceof errors.JWKSInvalid ||
    error instanceof errors.JOSEError ||
    error instanceof TypeError
  ) {
    // Fetch failures (TypeError), a non-200 or unparsable JWKS: the issuer is out of reach.
    return new TokenVerifierUnavailableError('The JWKS endpoint could not be read', { cause: error });
  }
  return error instanceof Error ? error : new Error(String(error));
}

/** The verified payload as an {@link AuthInfo}. */
function authInfoOf(payload: JWTPayload): AuthInfo {
  const claims = payload as Record<string, unknown>;
  const auth: { -readonly [K in keyof AuthInfo]: AuthInfo[K] } = { scopes: scopesOf(claims), claims };
  if (typeof payload.sub === 'string') auth.subject = payload.sub;
  const clientId = typeof claims.client_id === 'string' ? claims.client_id : claims.azp;
  if (typeof clientId === 'string') auth.clientId = clientId;
  if (typeof payload.iss === 'string') auth.issuer = payload.iss;
  if (payload.aud !== undefined)
    auth.audience = typeof payload.aud === 'string' ? [payload.aud] : payload.aud;
  if (typeof payload.exp === 'number') auth.expiresAt = payload.exp;
  return auth;
}

/**
 * Scopes from `scope` (RFC 9068: space-separated) or `scp` (an array, or a string).
 *
 * @example
 * scopesOf({ scope: 'read write' }); // ['read', 'write']
 */
export function scopesOf(claims: Readonly<Record<string, unknown>>): string[] {
  const raw = claims.scope ?? claims.scp;
  if (typeof raw === 'string') return raw.split(' ').filter((scope) => scope !== '');
  if (Array.isArray(raw))
    return raw.filter((scope): scope is string => typeof scope === 'string' && scope !== '');
  return [];
}
