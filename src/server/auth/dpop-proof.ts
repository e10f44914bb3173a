/**
 * The resource server's check of a DPoP proof (RFC 9449 §4.3, §7.1; MCP extension SEP-1932): its
 * form and signature (with jose), the request it names, its age, its `jti` (a bounded replay
 * cache), the access token it goes with (`ath`), and the server's nonce when one is required.
 */
import type { JWK } from 'jose';
import { DPoPNonces } from './dpop-nonce.js';

/**
 * Proof algorithms accepted by default: asymmetric only (RFC 9449 §4.2 forbids `none` and MACs).
 *
 * @example
 * serveHttp(server, { auth: { ...auth, dpop: { algorithms: DEFAULT_DPOP_ALGORITHMS.filter((a) => a.startsWith('ES')) } } });
 */
export const DEFAULT_DPOP_ALGORITHMS: readonly string[] = Object.freeze([
  'ES256',
  'ES384',
  'ES512',
  'PS256',
  'PS384',
  'PS512',
  'RS256',
  'RS384',
  'RS512',
  'EdDSA',
]);

/**
 * How a protected endpoint accepts DPoP-bound tokens (the `dpop` option of the resource server;
 * `true` is `{}`).
 *
 * @example
 * const dpop: DPoPResourceOptions = { required: true, nonce: true };
 */
export interface DPoPResourceOptions {
  /**
   * Accept only DPoP-bound tokens (`dpop_bound_access_tokens_required` in the metadata): a Bearer
   * token is refused. Default false: Bearer tokens without a `cnf.jkt` binding still work.
   */
  readonly required?: boolean;
  /** Proof algorithms accepted (`dpop_signing_alg_values_supported`). Default {@link DEFAULT_DPOP_ALGORITHMS}. */
  readonly algorithms?: readonly string[];
  /** How far a proof's `iat` may be from now, in seconds (SEP-1932: ±5 minutes). Default 300. */
  readonly maxAgeSeconds?: number;
  /**
   * Require a server nonce in every proof (RFC 9449 §9): a proof without a valid one is answered
   * 401 `use_dpop_nonce` with a `DPoP-Nonce` to use. Nonces are stateless (a MAC over their
   * expiry, keyed per process); `lifetimeSeconds` defaults to 300. Default false.
   */
  readonly nonce?: boolean | { readonly lifetimeSeconds?: number };
  /** Proof identifiers (`jti`) remembered against replay; the oldest is forgotten past this. Default 10,000. */
  readonly replayCacheSize?: number;
}

/**
 * Why a proof was refused: the RFC 9449 error code (`use_dpop_nonce` comes with a nonce to send).
 *
 * @example
 * const failure: DPoPFailure = { error: 'invalid_dpop_proof', description: 'The DPoP proof has expired (iat)' };
 */
export interface DPoPFailure {
  readonly error: 'invalid_dpop_proof' | 'use_dpop_nonce';
  readonly description: string;
  readonly nonce?: string;
}

/**
 * The checks of one endpoint's DPoP proofs, with its replay cache and nonces.
 *
 * @example
 * const checker = new DPoPProofChecker({}, 'https://mcp.example.com/mcp');
 * const result = await checker.check(proof, 'POST', accessToken);
 * if ('error' in result) refuse(result);
 */
export class DPoPProofChecker {
  readonly algorithms: readonly string[];
  readonly required: boolean;
  private readonly maxAge: number;
  private readonly htu: string;
  private readonly replayLimit: number;
  /** `jkt jti` → when it may be forgotten (ms); insertion order is expiry order. */
  private readonly seen = new Map<string, number>();
  private readonly nonces: DPoPNonces | undefined;

  constructor(options: DPoPResourceOptions, resource: string) {
    this.algorithms = Object.freeze([...(options.algorithms ?? DEFAULT_DPOP_ALGORITHMS)]);
    const refused = this.algorithms.filter(
      (alg) => typeof alg !== 'string' || alg === 'none' || /^HS/i.test(alg),
    );
    if (refused.length > 0 || this.algorithms.length === 0) {
      throw new TypeError(
        `auth.dpop.algorithms: only asymmetric algorithms are allowed (refused: ${refused.join(', ')})`,
      );
    }
    this.required = options.required === true;
    this.maxAge = positive(options.maxAgeSeconds, 300, 'auth.dpop.maxAgeSeconds');
    this.replayLimit = positive(options.replayCacheSize, 10_000, 'auth.dpop.replayCacheSize');
    this.htu = normalizeHtu(resource) ?? resource;
    if (options.nonce) {
      const lifetime = options.nonce === true ? undefined : options.nonce.lifetimeSeconds;
      this.nonces = new DPoPNonces(positive(lifetime, 300, 'auth.dpop.nonce.lifetimeSeconds'));
    }
  }

  /**
   * Check `proof` (the `DPoP` header; null: absent) for a request with `method` carrying
   * `accessToken`. Resolves with the proof key's JWK thumbprint (to compare with the token's
   * `cnf.jkt`) and the proof's `jti` (for {@link firstUse}), or the failure. Never rejects.
   */
  async check(
    proof: string | null,
    method: string,
    accessToken: string,
  ): Promise<{ readonly jkt: string; readonly jti: string } | DPoPFailure> {
    if (proof === null || proof === '') return invalid('The request has no DPoP proof');
    // Repeated headers arrive joined with commas, which no compact JWS contains.
    if (proof.includes(',')) return invalid('The request has more than one DPoP proof');
    const jose = await import('jose');
    let header: ReturnType<typeof jose.decodeProtectedHeader>;
    try {
      header = jose.decodeProtectedHeader(proof);
    } catch {
      return invalid('The DPoP proof is not a JWT');
    }
    if (header.typ !== 'dpop+jwt') return invalid('The DPoP proof is not of type dpop+jwt');
    if (typeof header.alg !== 'string' || !this.algorithms.includes(header.alg)) {
      return invalid('The DPoP proof algorithm is not accepted');
    }
    const jwk = header.jwk as JWK | undefined;
    if (typeof jwk !== 'object' || jwk === null) return invalid('The DPoP proof has no jwk');
    if ('d' in jwk || 'p' in jwk || 'k' in jwk) return invalid('The DPoP proof jwk is not a public key');
    let claims: Record<string, unknown>;
    try {
      const key = await jose.importJWK(jwk, header.alg);
      claims = (await jose.jwtVerify(proof, key, { typ: 'dpop+jwt', algorithms: [...this.algorithms] }))
        .payload;
    } catch {
      return invalid('The DPoP proof signature is invalid');
    }
    if (typeof claims.jti !== 'string' || claims.jti === '') return invalid('The DPoP proof has no jti');
    if (claims.htm !== method) return invalid('The DPoP proof is for another HTTP method (htm)');
    if (typeof claims.htu !== 'string' || normalizeHtu(claims.htu) !== this.htu) {
      return invalid('The DPoP proof is for another URL (htu)');
    }
    const now = Date.now();
    if (typeof claims.iat !== 'number' || Math.abs(now / 1000 - claims.iat) > this.maxAge) {
      return invalid('The DPoP proof is too old or from the future (iat)');
    }
    const ath = await sha256(accessToken, jose.base64url.encode);
    if (claims.ath !== ath) return invalid('The DPoP proof is not for this access token (ath)');
    if (this.nonces && !(await this.nonces.valid(claims.nonce, now))) {
      return {
        error: 'use_dpop_nonce',
        description: 'The resource server requires a nonce in the DPoP proof',
        nonce: await this.nonces.issue(now),
      };
    }
    return { jkt: await jose.calculateJwkThumbprint(jwk, 'sha256'), jti: claims.jti };
  }

  /**
   * Whether this is the first use of proof `jti` by key `jkt` (then it is remembered). Called
   * once the token is verified and bound to `jkt`, so only a holder of a valid token can fill
   * the cache: junk proofs cannot push real entries out.
   */
  firstUse(jkt: string, jti: string): boolean {
    return this.remember(`${jkt} ${jti}`, Date.now());
  }

  /** A fresh nonce to hand out (when nonces are on), e.g. with a refusal. */
  async nonce(): Promise<string | undefined> {
    return this.nonces?.issue(Date.now());
  }

  /** False when `key` is remembered; else remember it until it could no longer pass the `iat` check. */
  private remember(key: string, now: number): boolean {
    for (const [old, until] of this.seen) {
      if (until > now) break;
      this.seen.delete(old);
    }
    if (this.seen.has(key)) return false;
    // Full of live entries: forget the oldest (the `iat` window still bounds its replay).
    if (this.seen.size >= this.replayLimit) this.seen.delete(this.seen.keys().next().value!);
    this.seen.set(key, now + 2 * this.maxAge * 1000);
    return true;
  }
}

function invalid(description: string): DPoPFailure {
  return { error: 'invalid_dpop_proof', description };
}

/** Origin and path of a URL (RFC 9449 §4.3: `htu` is compared without query and fragment). */
function normalizeHtu(value: string): string | undefined {
  try {
    const url = new URL(value);
    return `${url.origin}${url.pathname}`;
  } catch {
    return undefined;
  }
}

async function sha256(text: string, encode: (bytes: Uint8Array) => string): Promise<string> {
  return encode(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text))));
}

function positive(value: number | undefined, fallback: number, what: string): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value <= 0) throw new TypeError(`${what} must be a positive integer`);
  return value;
}
