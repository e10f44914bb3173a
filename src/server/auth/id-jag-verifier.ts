/**
 * Enterprise-managed authorization (SEP-990, extension
 * `io.modelcontextprotocol/enterprise-managed-authorization`) on the authorization server side:
 * the checks an MCP server's authorization server makes on an Identity Assertion JWT
 * Authorization Grant (ID-JAG) presented with the RFC 7523 JWT bearer grant, before it issues an
 * access token audience-restricted to the ID-JAG's `resource`. The MCP server then accepts that
 * token like any other (a {@link JwtVerifier} whose `audience` is its resource identifier; an
 * ID-JAG itself is refused there, its `typ` is not an access token's).
 */
import type { createLocalJWKSet, createRemoteJWKSet, JSONWebKeySet, JWTPayload } from 'jose';
import { boundedFetch } from './bounded-fetch.js';
import { InvalidGrantError, TokenVerifierUnavailableError } from './errors.js';
import { discoverJwksUri } from './issuer-metadata.js';
import { DEFAULT_JWT_ALGORITHMS, scopesOf } from './jwt-verifier.js';

/**
 * The grant profile an authorization server that accepts ID-JAGs lists in its metadata under
 * `authorization_grant_profiles_supported` (SEP-990 §6), with
 * `urn:ietf:params:oauth:grant-type:jwt-bearer` in `grant_types_supported`.
 *
 * @example
 * const metadata = { issuer, token_endpoint, authorization_grant_profiles_supported: [ID_JAG_GRANT_PROFILE] };
 */
export const ID_JAG_GRANT_PROFILE = 'urn:ietf:params:oauth:grant-profile:id-jag';

/** The JOSE `typ` of an ID-JAG. */
const ID_JAG_TYP = 'oauth-id-jag+jwt';

/**
 * An enterprise IdP whose ID-JAGs are accepted, and where its signing keys are.
 *
 * @example
 * const idp: TrustedIdentityProvider = { issuer: 'https://acme.idp.example', jwksUri: 'https://acme.idp.example/keys' };
 */
export interface TrustedIdentityProvider {
  /** The IdP's issuer identifier: the ID-JAG's `iss`, exactly. */
  readonly issuer: string;
  /** Its JWKS URL. Default: `jwks_uri` from its metadata (RFC 8414, then OpenID discovery). */
  readonly jwksUri?: string | URL;
  /** Its keys, given directly (no fetch). */
  readonly jwks?: JSONWebKeySet;
}

/**
 * Remembers the ID-JAGs already used: `remember(key, expiresAt)` returns false for a key it has
 * seen before. Share one (Redis, a database) between the instances of an authorization server.
 *
 * @example
 * const seen: IdJagReplayStore = { remember: async (key, expiresAt) => (await redis.set(key, '1', { NX: true, PXAT: expiresAt })) === 'OK' };
 */
export interface IdJagReplayStore {
  remember(key: string, expiresAt: number): boolean | Promise<boolean>;
}

/**
 * @example
 * const options: IdJagVerifierOptions = {
 *   issuer: 'https://auth.example.com',
 *   identityProviders: [{ issuer: 'https://acme.idp.example' }],
 *   resources: ['https://mcp.example.com/mcp'],
 * };
 */
export interface IdJagVerifierOptions {
  /** This authorization server's issuer identifier: the ID-JAG's `aud` must name it. */
  readonly issuer: string;
  /** The IdPs trusted to issue ID-JAGs (at least one). */
  readonly identityProviders: readonly TrustedIdentityProvider[];
  /** The resource identifiers (MCP servers) tokens are issued for: the `resource` claim must be one. */
  readonly resources: readonly string[];
  /** The scopes this server knows: an ID-JAG asking for another is refused. Default: not checked. */
  readonly scopesSupported?: readonly string[];
  /** Allowed algorithms (asymmetric only). Default {@link DEFAULT_JWT_ALGORITHMS}. */
  readonly algorithms?: readonly string[];
  /** Tolerated clock skew for `exp` and `iat`, in seconds. Default 30. */
  readonly clockToleranceSeconds?: number;
  /** Longest accepted lifetime (`exp - iat`), in seconds: ID-JAGs are short-lived. Default 600. */
  readonly maxLifetimeSeconds?: number;
  /** Where used `jti`s are kept. Default: in memory, per verifier (one process). */
  readonly replayStore?: IdJagReplayStore;
  /** Time allowed for a JWKS or metadata fetch, in ms. Default 5,000. */
  readonly timeoutMs?: number;
}

/**
 * What the token request says besides the assertion.
 *
 * @example
 * await verifier.verify(form.assertion, { clientId: authenticatedClientId, scope: form.scope });
 */
export interface IdJagRequest {
  /** The client the token endpoint authenticated: the ID-JAG's `client_id` must be it. */
  readonly clientId: string;
  /** The `scope` parameter of the token request, if any. */
  readonly scope?: string;
  /** The `resource` parameter of the token request, if any: it must equal the ID-JAG's. */
  readonly resource?: string;
}

/**
 * An accepted ID-JAG: what the access token to issue is for.
 *
 * @example
 * issueAccessToken({ sub: grant.subject, aud: grant.resource, client_id: grant.clientId, scope: grant.scopes.join(' ') });
 */
export interface IdJagGrant {
  /** The IdP that issued it. */
  readonly issuer: string;
  /** The user, as the IdP identifies them. */
  readonly subject: string;
  readonly clientId: string;
  /** The MCP server the access token must be audience-restricted to. */
  readonly resource: string;
  /** The scopes to grant: the ID-JAG's, intersected with the request's when it named some. */
  readonly scopes: readonly string[];
  /** `exp` of the ID-JAG (seconds since the epoch). */
  readonly expiresAt: number;
  /** Every verified claim. */
  readonly claims: Readonly<Record<string, unknown>>;
}

/** Largest number of remembered `jti`s in the default store (each lives at most maxLifetimeSeconds). */
const MAX_REMEMBERED = 100_000;

type KeySet = ReturnType<typeof createRemoteJWKSet> | ReturnType<typeof createLocalJWKSet>;

/**
 * Verifies ID-JAGs as SEP-990 requires of the MCP authorization server: `typ`
 * `oauth-id-jag+jwt`; signed by a trusted IdP with an allowed asymmetric algorithm; `iss` that
 * IdP, `aud` this server's issuer, `sub`, `iat` and `exp` present, within a short lifetime; a
 * `jti` never seen before; `client_id` the authenticated client; `resource` one of this server's
 * resources (and the request's, when it names one); scopes known. Every refusal is an
 * {@link InvalidGrantError} (`invalid_grant`); an IdP whose keys cannot be read is a
 * `TokenVerifierUnavailableError`.
 *
 * @example
 * const idJags = new IdJagVerifier({
 *   issuer: 'https://auth.example.com',
 *   identityProviders: [{ issuer: 'https://acme.idp.example' }],
 *   resources: ['https://mcp.example.com/mcp'],
 * });
 * // at the token endpoint, for grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer:
 * const grant = await idJags.verify(form.assertion, { clientId: authenticatedClientId, scope: form.scope });
 */
export class IdJagVerifier {
  private readonly algorithms: string[];
  private readonly keys = new Map<string, Promise<KeySet>>();
  private readonly idps: ReadonlyMap<string, TrustedIdentityProvider>;
  private readonly replay: IdJagReplayStore;

  constructor(private readonly options: IdJagVerifierOptions) {
    if (typeof options.issuer !== 'string' || options.issuer === '') {
      throw new TypeError("IdJagVerifier: issuer (this authorization server's issuer) is required");
    }
    if (!options.identityProviders?.length) throw new TypeError('IdJagVerifier: identityProviders is empty');
    if (!options.resources?.length) throw new TypeError('IdJagVerifier: resources is empty');
    this.algorithms = [...(options.algorithms ?? DEFAULT_JWT_ALGORITHMS)];
    if (
      this.algorithms.length === 0 ||
      this.algorithms.some((alg) => !alg || alg === 'none' || /^HS/i.test(alg))
    ) {
      throw new TypeError('IdJagVerifier: only asymmetric algorithms are allowed');
    }
    this.idps = new Map(options.identityProviders.map((idp) => [idp.issuer, idp]));
    this.replay = options.replayStore ?? memoryReplayStore();
  }

  /** Verifies `assertion` for `request`; resolves with what to issue, or rejects (see the class). */
  async verify(assertion: string, request: IdJagRequest): Promise<IdJagGrant> {
    const jose = await loadJose();
    if (typeof assertion !== 'string' || assertion === '') throw new InvalidGrantError('No assertion');
    let unverified: JWTPayload;
    try {
      const header = jose.decodeProtectedHeader(assertion);
      if (header.typ?.toLowerCase() !== ID_JAG_TYP) {
        throw new InvalidGrantError(`The assertion is not an ID-JAG (typ must be ${ID_JAG_TYP})`);
      }
      unverified = jose.decodeJwt(assertion);
    } catch (error) {
      throw error instanceof InvalidGrantError ? error : new InvalidGrantError('The assertion is not a JWT');
    }
    const idp = typeof unverified.iss === 'string' ? this.idps.get(unverified.iss) : undefined;
    if (!idp) throw new InvalidGrantError('The ID-JAG was not issued by a trusted identity provider (iss)');
    const tolerance = this.options.clockToleranceSeconds ?? 30;
    let payload: JWTPayload;
    try {
      ({ payload } = await jose.jwtVerify(assertion, await this.keySet(idp), {
        issuer: idp.issuer,
        audience: this.options.issuer,
        algorithms: this.algorithms,
        clockTolerance: tolerance,
        requiredClaims: ['exp', 'iat', 'sub', 'jti'],
      }));
    } catch (error) {
      throw translate(error, jose.errors);
    }
    const claims = payload as Record<string, unknown>;
    const now = Date.now() / 1000;
    const exp = payload.exp!;
    const iat = payload.iat!;
    if (iat > now + tolerance) throw new InvalidGrantError('The ID-JAG was issued in the future (iat)');
    if (exp - iat > (this.options.maxLifetimeSeconds ?? 600)) {
      throw new InvalidGrantError('The ID-JAG lives longer than this server accepts (exp - iat)');
    }
    if (claims.client_id !== request.clientId) {
      throw new InvalidGrantError('The ID-JAG was issued to another client (client_id)');
    }
    const resource = claims.resource;
    if (typeof resource !== 'string' || !this.options.resources.includes(resource)) {
      throw new InvalidGrantError('The ID-JAG is not for a resource of this server (resource)');
    }
    if (request.resource !== undefined && request.resource !== resource) {
      throw new InvalidGrantError('The ID-JAG is for another resource than the request (resource)');
    }
    const granted = scopesOf(claims);
    const supported = this.options.scopesSupported;
    if (supported && granted.some((scope) => !supported.includes(scope))) {
      throw new InvalidGrantError('The ID-JAG names a scope this server does not know (scope)');
    }
    const requested = request.scope?.split(' ').filter((scope) => scope !== '');
    const scopes = requested?.length ? granted.filter((scope) => requested.includes(scope)) : granted;
    // Last, so that a refused ID-JAG does not use up its jti.
    const key = `${idp.issuer} ${String(payload.sub)} ${String(payload.jti)}`;
    if (!(await this.replay.remember(key, (exp + tolerance) * 1000))) {
      throw new InvalidGrantError('The ID-JAG was already used (jti)');
    }
    return {
      issuer: idp.issuer,
      subject: payload.sub!,
      clientId: request.clientId,
      resource,
      scopes,
      expiresAt: exp,
      claims,
    };
  }

  private keySet(idp: TrustedIdentityProvider): Promise<KeySet> {
    let keys = this.keys.get(idp.issuer);
    if (!keys) {
      keys = this.makeKeySet(idp);
      this.keys.set(idp.issuer, keys);
      // A failed discovery is retried by the next grant instead of failing forever.
      const made = keys;
      made.catch(() => {
        if (this.keys.get(idp.issuer) === made) this.keys.delete(idp.issuer);
      });
    }
    return keys;
  }

  private async makeKeySet(idp: TrustedIdentityProvider): Promise<KeySet> {
    const { createLocalJWKSet, createRemoteJWKSet, customFetch } = await loadJose();
    if (idp.jwks) return createLocalJWKSet(idp.jwks);
    const timeoutMs = this.options.timeoutMs ?? 5_000;
    const uri = idp.jwksUri ?? (await discoverJwksUri(idp.issuer, timeoutMs));
    return createRemoteJWKSet(new URL(uri), {
      timeoutDuration: 0,
      [customFetch]: (url: string, init: RequestInit) => boundedFetch(new URL(url), init, timeoutMs),
    });
  }
}

/** The default replay store: a map from key to expiry, pruned as it goes, bounded. */
function memoryReplayStore(): IdJagReplayStore {
  const seen = new Map<string, number>();
  return {
    remember(key, expiresAt) {
      const now = Date.now();
      if ((seen.get(key) ?? 0) > now) return false;
      if (seen.size >= MAX_REMEMBERED) {
        for (const [old, until] of seen) if (until <= now) seen.delete(old);
        // Forgetting a live jti would let it be replayed: refuse new grants until some expire.
        if (seen.size >= MAX_REMEMBERED) {
          throw new TokenVerifierUnavailableError('Too many ID-JAGs in flight; try again shortly');
        }
      }
      seen.set(key, expiresAt);
      return true;
    },
  };
}

let jose: Promise<typeof import('jose')> | undefined;
function loadJose(): Promise<typeof import('jose')> {
  return (jose ??= import('jose'));
}

/** jose's verdict: a refused grant, or keys out of reach. Messages name the claim only. */
function translate(error: unknown, errors: typeof import('jose').errors): Error {
  if (error instanceof InvalidGrantError || error instanceof TokenVerifierUnavailableError) return error;
  if (error instanceof errors.JWTExpired) return new InvalidGrantError('The ID-JAG has expired (exp)');
  if (error instanceof errors.JWTClaimValidationFailed) {
    return new InvalidGrantError(`The ID-JAG's ${error.claim} claim is not acceptable`);
  }
  if (error instanceof errors.JOSEAlgNotAllowed)
    return new InvalidGrantError("The ID-JAG's algorithm is not allowed");
  if (error instanceof errors.JWSSignatureVerificationFailed) {
    return new InvalidGrantError("The ID-JAG's signature is invalid");
  }
  if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys) {
    return new InvalidGrantError('The ID-JAG was not signed by a key of its issuer');
  }
  if (
    error instanceof errors.JWSInvalid ||
    error instanceof errors.JWTInvalid ||
    error instanceof errors.JOSENotSupported
  ) {
    return new InvalidGrantError('The ID-JAG is malformed');
  }
  return new TokenVerifierUnavailableError("The identity provider's keys could not be read", {
    cause: error,
  });
}
