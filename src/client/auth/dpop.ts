/**
 * DPoP on the client (RFC 9449, MCP extension SEP-1932): one key pair per OAuth provider, proofs
 * for its token requests (through oauth4webapi's DPoP handle) and for every MCP HTTP request
 * (signed with jose), and the nonces servers hand out (RFC 9449 §8 at the token endpoint, §9 at
 * the MCP server), the latest kept per origin.
 */
import * as oauth from 'oauth4webapi';
import type { AuthChallenge, TokenStore } from '../../core/auth.js';
import { parseWwwAuthenticate } from './www-authenticate.js';
import type { DiscoveredAuthorization } from './discovery.js';
import { AuthorizationError } from './errors.js';
import type { Extension } from '../../core/extensions.js';
import { readJson } from './store.js';

/**
 * The extension identifier of DPoP for MCP (SEP-1932), as the conformance suite names it: what a
 * client using DPoP declares under `capabilities.extensions`.
 *
 * @example
 * client.extend(dpopExtension()); // declares { [DPOP_EXTENSION_ID]: {} }
 */
export const DPOP_EXTENSION_ID = 'io.modelcontextprotocol/auth/dpop';

/**
 * Proof algorithms this client can sign with (asymmetric only, RFC 9449 §4.2).
 *
 * @example
 * const algorithm: DPoPAlgorithm = 'ES384';
 * new OAuthClientProvider({ ...options, dpop: { algorithm } });
 */
export type DPoPAlgorithm = 'ES256' | 'ES384' | 'ES512' | 'PS256' | 'RS256' | 'EdDSA';

/**
 * The `dpop` option of the OAuth providers. `true` is `{}`: an ES256 key generated on first use
 * and kept in the provider's {@link TokenStore}, so a restarted client keeps its tokens' binding.
 *
 * @example
 * new OAuthClientProvider({ ...options, dpop: { algorithm: 'ES384' } });
 */
export interface DPoPOptions {
  /** The key pair to sign proofs with (its public key must be extractable). Default: generated. */
  readonly keyPair?: CryptoKeyPair;
  /** The algorithm of a generated key (default `ES256`, which every DPoP server supports). */
  readonly algorithm?: DPoPAlgorithm;
  /**
   * Keep a generated key in the provider's store (default true): tokens bound to a key are
   * worthless without it. The store then holds a private key: it must be kept secret anyway.
   */
  readonly persist?: boolean;
}

/**
 * The extension to declare in a client using DPoP (`client.extend(dpopExtension())`, or every
 * entry of the provider's `extensions`): the server learns that this client presents DPoP-bound
 * tokens. Settings are empty.
 *
 * @example
 * const client = new McpClient({ name: 'agent', version: '1.0.0' });
 * client.extend(dpopExtension());
 */
export function dpopExtension(): Extension<unknown> {
  return { id: DPOP_EXTENSION_ID, settings: {} };
}

/**
 * Store key of the persisted DPoP key of a provider (one key for all its servers).
 *
 * @example
 * await store.get(dpopKeyKey());
 */
export function dpopKeyKey(): string {
  return 'oauth:dpop-key';
}

interface StoredKey {
  readonly alg: string;
  readonly privateJwk: Record<string, unknown>;
  readonly publicJwk: Record<string, unknown>;
}

/** Nonces kept: servers (origins) a provider talks to; the oldest is forgotten past this. */
const MAX_NONCES = 100;

/**
 * The DPoP state of one provider: its key (made or loaded once), the oauth4webapi handle for
 * token requests, the nonces of MCP servers, and the proofs of MCP requests.
 *
 * @example
 * const dpop = new DPoPSigner({}, store);
 * headers.dpop = await dpop.proof(new URL('https://mcp.example.com/mcp'), 'POST', accessToken);
 */
export class DPoPSigner {
  private key: Promise<{ pair: CryptoKeyPair; alg: string; jwk: Record<string, unknown> }> | undefined;
  private handle: oauth.DPoPHandle | undefined;
  private readonly nonces = new Map<string, string>();
  /** The nonce each request (by its signal) last sent a proof with. */
  private readonly sentNonce = new WeakMap<AbortSignal, string | undefined>();

  constructor(
    private readonly options: DPoPOptions,
    private readonly store: TokenStore,
  ) {}

  /** The oauth4webapi DPoP handle (one per provider: it keeps the authorization servers' nonces). */
  async tokenHandle(): Promise<oauth.DPoPHandle> {
    const { pair } = await this.keyPair();
    return (this.handle ??= oauth.DPoP({}, pair));
  }

  /** The JWS algorithm of the key (`ES256` unless chosen or given otherwise). */
  async algorithm(): Promise<string> {
    return (await this.keyPair()).alg;
  }

  /** The JWK SHA-256 thumbprint of the public key (RFC 7638): the `cnf.jkt` of bound tokens. */
  async thumbprint(): Promise<string> {
    const { jwk } = await this.keyPair();
    const { calculateJwkThumbprint } = await import('jose');
    return calculateJwkThumbprint(jwk, 'sha256');
  }

  /**
   * A fresh proof for one request (RFC 9449 §4.2): `htm`, `htu` without query and fragment,
   * `iat`, a random `jti`, `ath` when an access token goes with it, and the origin's latest nonce.
   */
  async proof(url: URL, method: string, accessToken?: string): Promise<string> {
    const { pair, alg, jwk } = await this.keyPair();
    const { SignJWT, base64url } = await import('jose');
    const claims: Record<string, string> = { htm: method, htu: `${url.origin}${url.pathname}` };
    if (accessToken !== undefined) {
      const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(accessToken));
      claims.ath = base64url.encode(new Uint8Array(digest));
    }
    const nonce = this.nonces.get(url.origin);
    if (nonce !== undefined) claims.nonce = nonce;
    return new SignJWT(claims)
      .setProtectedHeader({ alg, typ: 'dpop+jwt', jwk })
      .setIssuedAt()
      .setJti(crypto.randomUUID())
      .sign(pair.privateKey);
  }

  /** The nonce last given by `url`'s origin, if any. */
  nonce(url: URL): string | undefined {
    return this.nonces.get(url.origin);
  }

  /**
   * The headers of one MCP request with a DPoP-bound `accessToken`: `authorization: DPoP …` and
   * a fresh `dpop` proof. `signal` identifies the request (for {@link nonceChallenge}).
   */
  async requestHeaders(
    url: URL,
    method: string,
    accessToken: string,
    signal: AbortSignal,
  ): Promise<Readonly<Record<string, string>>> {
    this.sentNonce.set(signal, this.nonce(url));
    return { authorization: `DPoP ${accessToken}`, dpop: await this.proof(url, method, accessToken) };
  }

  /**
   * RFC 9449 §9: whether a refusal is a 401 `DPoP error="use_dpop_nonce"` with a `DPoP-Nonce`
   * that the refused request's proof did not carry (then the nonce is kept and the request is
   * worth one retry; a nonce the proof already carried would only be refused again).
   */
  nonceChallenge(challenge: AuthChallenge, signal: AbortSignal): boolean {
    if (challenge.status !== 401 || !challenge.wwwAuthenticate) return false;
    const asked = parseWwwAuthenticate(challenge.wwwAuthenticate).some(
      (c) => c.scheme === 'dpop' && c.params.error === 'use_dpop_nonce',
    );
    const nonce = challenge.headers?.get('dpop-nonce');
    if (!asked || !nonce) return false;
    this.remember(challenge.url, challenge.headers);
    // Only a request that sent a proof (a DPoP-bound token) is asked for one with the nonce.
    return this.sentNonce.has(signal) && this.sentNonce.get(signal) !== nonce;
  }

  /**
   * Keep the `DPoP-Nonce` of a response from `url` (the latest per origin). Returns true when it
   * is new: a refusal asking for it is then worth one retry.
   */
  remember(url: URL, headers: Headers | undefined): boolean {
    const nonce = headers?.get('dpop-nonce');
    if (!nonce || this.nonces.get(url.origin) === nonce) return false;
    this.nonces.delete(url.origin);
    if (this.nonces.size >= MAX_NONCES) this.nonces.delete(this.nonces.keys().next().value!);
    this.nonces.set(url.origin, nonce);
    return true;
  }

  private keyPair(): Promise<{ pair: CryptoKeyPair; alg: string; jwk: Record<string, unknown> }> {
    const made = (this.key ??= this.load());
    // A store that failed is tried again by the next request rather than failing forever.
    made.catch(() => {
      if (this.key === made) this.key = undefined;
    });
    return made;
  }

  private async load(): Promise<{ pair: CryptoKeyPair; alg: string; jwk: Record<string, unknown> }> {
    const jose = await import('jose');
    const given = this.options.keyPair;
    if (given) {
      const alg = algorithmOf(given.privateKey);
      return { pair: given, alg, jwk: publicOnly(await jose.exportJWK(given.publicKey)) };
    }
    const persist = this.options.persist ?? true;
    const alg = this.options.algorithm ?? 'ES256';
    if (persist) {
      const stored = await readJson<StoredKey>(this.store, dpopKeyKey());
      if (stored && typeof stored.alg === 'string') {
        try {
          const privateKey = (await jose.importJWK(stored.privateJwk, stored.alg)) as CryptoKey;
          const publicKey = (await jose.importJWK(stored.publicJwk, stored.alg, {
            extractable: true,
          })) as CryptoKey;
          return { pair: { privateKey, publicKey }, alg: stored.alg, jwk: publicOnly(stored.publicJwk) };
        } catch {
          // A key that no longer imports is replaced: its tokens need a new login anyway.
        }
      }
    }
    const pair = await jose.generateKeyPair(alg, { extractable: persist });
    const publicJwk = await jose.exportJWK(pair.publicKey);
    if (persist) {
      const privateJwk = await jose.exportJWK(pair.privateKey);
      const value: StoredKey = { alg, privateJwk: { ...privateJwk }, publicJwk: { ...publicJwk } };
      await this.store.set(dpopKeyKey(), JSON.stringify(value));
    }
    return { pair, alg, jwk: publicOnly(publicJwk) };
  }
}

/**
 * Refuse, before any authorization request, what DPoP negotiation says cannot work: a resource
 * that takes only DPoP-bound tokens (`dpop_bound_access_tokens_required` in its metadata) with no
 * `dpop` option, or an authorization server whose `dpop_signing_alg_values_supported` leaves out
 * the algorithm of the client's key. Fails with a `token` AuthorizationError.
 *
 * @example
 * await checkDPoPNegotiation(discovery, signer);
 */
export async function checkDPoPNegotiation(
  discovery: DiscoveredAuthorization,
  signer: DPoPSigner | undefined,
): Promise<void> {
  if (!signer) {
    if (discovery.resourceMetadata?.dpop_bound_access_tokens_required === true) {
      throw new AuthorizationError(
        'token',
        `${discovery.resource} accepts only DPoP-bound tokens (dpop_bound_access_tokens_required): set the dpop option`,
      );
    }
    return;
  }
  const supported = discovery.authorizationServer.dpop_signing_alg_values_supported;
  if (!Array.isArray(supported)) return;
  const alg = await signer.algorithm();
  if (!supported.includes(alg)) {
    throw new AuthorizationError(
      'token',
      `${discovery.issuer} takes DPoP proofs signed with ${supported.join(', ') || 'no algorithm'}, not ${alg} (dpop.algorithm chooses the key's)`,
    );
  }
}

/** The public members of a JWK (a proof's `jwk` header must hold no private part). */
function publicOnly(jwk: object): Record<string, unknown> {
  const { kty, crv, x, y, n, e } = jwk as Record<string, unknown>;
  const out: Record<string, unknown> = { kty };
  for (const [name, value] of Object.entries({ crv, x, y, n, e })) if (value !== undefined) out[name] = value;
  return out;
}

/** The JWS algorithm of a given key (as oauth4webapi infers it for the token requests). */
function algorithmOf(key: CryptoKey): string {
  const algorithm = key.algorithm as { name: string; namedCurve?: string; hash?: { name: string } };
  switch (algorithm.name) {
    case 'ECDSA':
      return { 'P-256': 'ES256', 'P-384': 'ES384', 'P-521': 'ES512' }[algorithm.namedCurve ?? ''] ?? 'ES256';
    case 'RSA-PSS':
      return `PS${algorithm.hash?.name.slice(4) ?? '256'}`;
    case 'RSASSA-PKCS1-v1_5':
      return `RS${algorithm.hash?.name.slice(4) ?? '256'}`;
    case 'Ed25519':
    case 'EdDSA':
      return 'EdDSA';
    default:
      throw new TypeError(`dpop.keyPair: unsupported key algorithm ${algorithm.name}`);
  }
}
