/** DPoP proofs made the way RFC 9449 §4.2 describes, for the resource server tests. */
import { createHash, randomUUID } from 'node:crypto';
import {
  base64url,
  calculateJwkThumbprint,
  exportJWK,
  generateKeyPair,
  SignJWT,
  type CryptoKey,
  type JWK,
} from 'jose';

export interface ProofKey {
  readonly privateKey: CryptoKey;
  readonly jwk: JWK;
  readonly jkt: string;
  readonly alg: string;
}

export async function proofKey(alg = 'ES256'): Promise<ProofKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const jwk = await exportJWK(publicKey);
  return { privateKey, jwk, jkt: await calculateJwkThumbprint(jwk, 'sha256'), alg };
}

export function ath(token: string): string {
  return base64url.encode(new Uint8Array(createHash('sha256').update(token).digest()));
}

export interface ProofParts {
  htm?: string;
  htu?: string;
  iat?: number;
  jti?: string | undefined;
  ath?: string | undefined;
  nonce?: string;
  header?: Record<string, unknown>;
}

/** A proof for `token` by `key`; every claim and header can be overridden (undefined: left out). */
export async function proof(
  key: ProofKey,
  token: string,
  url: string,
  parts: ProofParts = {},
): Promise<string> {
  const claims: Record<string, unknown> = {
    htm: parts.htm ?? 'POST',
    htu: parts.htu ?? url,
    iat: parts.iat ?? Math.floor(Date.now() / 1000),
  };
  const jti = 'jti' in parts ? parts.jti : randomUUID();
  if (jti !== undefined) claims.jti = jti;
  const hash = 'ath' in parts ? parts.ath : ath(token);
  if (hash !== undefined) claims.ath = hash;
  if (parts.nonce !== undefined) claims.nonce = parts.nonce;
  return new SignJWT(claims)
    .setProtectedHeader({ alg: key.alg, typ: 'dpop+jwt', jwk: key.jwk, ...parts.header })
    .sign(key.privateKey);
}
