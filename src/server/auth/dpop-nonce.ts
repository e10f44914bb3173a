/**
 * Stateless DPoP nonces of a resource server (RFC 9449 §9; SEP-1932 suggests a protected
 * timestamp): `<expiry seconds>.<HMAC of it>`, with a key made per process, so any nonce this
 * process issued is checked without remembering it, and none outlives its lifetime.
 */

/**
 * Issues and checks the nonces of one endpoint.
 *
 * @example
 * const nonces = new DPoPNonces(300);
 * const nonce = await nonces.issue(Date.now());
 * await nonces.valid(nonce, Date.now()); // true
 */
export class DPoPNonces {
  private key: Promise<CryptoKey> | undefined;

  constructor(private readonly lifetimeSeconds: number) {}

  /** A nonce valid for the lifetime from `now` (ms). */
  async issue(now: number): Promise<string> {
    const expiry = String(Math.floor(now / 1000) + this.lifetimeSeconds);
    return `${expiry}.${await this.mac(expiry)}`;
  }

  /** Whether `nonce` was issued here and has not expired at `now` (ms). */
  async valid(nonce: unknown, now: number): Promise<boolean> {
    if (typeof nonce !== 'string' || nonce.length > 100) return false;
    const dot = nonce.indexOf('.');
    const expiry = nonce.slice(0, dot);
    if (dot < 0 || !/^\d{1,12}$/.test(expiry) || Number(expiry) * 1000 <= now) return false;
    const key = await this.keyOnce();
    const tag = fromBase64url(nonce.slice(dot + 1));
    if (!tag) return false;
    return crypto.subtle.verify('HMAC', key, tag, new TextEncoder().encode(expiry));
  }

  private async mac(text: string): Promise<string> {
    const key = await this.keyOnce();
    const tag = await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(text));
    return toBase64url(new Uint8Array(tag));
  }

  private keyOnce(): Promise<CryptoKey> {
    return (this.key ??= crypto.subtle.generateKey({ name: 'HMAC', hash: 'SHA-256' }, false, [
      'sign',
      'verify',
    ]));
  }
}

function toBase64url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64url(text: string): Uint8Array<ArrayBuffer> | undefined {
  if (!/^[A-Za-z0-9_-]{1,100}$/.test(text)) return undefined;
  try {
    const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
    return Uint8Array.from(binary, (c) => c.charCodeAt(0));
  } catch {
    return undefined; // a length no base64 has
  }
}
