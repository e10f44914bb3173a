import type { TokenStore } from '../../core/auth.js';

/**
 * The default {@link TokenStore}: a Map in this process. Nothing outlives the process, which is
 * the safe default for secrets; give the provider a persistent store to keep logins.
 *
 * @example
 * const provider = new OAuthClientProvider({ ...options, store: new MemoryTokenStore() });
 */
export class MemoryTokenStore implements TokenStore {
  private readonly values = new Map<string, string>();
  get(key: string): Promise<string | undefined> {
    return Promise.resolve(this.values.get(key));
  }
  set(key: string, value: string): Promise<void> {
    this.values.set(key, value);
    return Promise.resolve();
  }
  delete(key: string): Promise<void> {
    this.values.delete(key);
    return Promise.resolve();
  }
}

/**
 * Read a JSON value from `store`; a value that does not parse is treated as absent (and deleted),
 * so a corrupt store costs a new login rather than a crash.
 *
 * @example
 * const tokens = await readJson<StoredTokens>(store, tokensKey(issuer, resource));
 */
export async function readJson<T>(store: TokenStore, key: string): Promise<T | undefined> {
  const raw = await store.get(key);
  if (raw === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(raw);
    if (typeof value === 'object' && value !== null) return value as T;
  } catch {
    // fall through
  }
  await store.delete(key);
  return undefined;
}

/**
 * Store key of the client registration with an authorization server (RFC 6749 §2.2: a client ID
 * belongs to the server that issued it, so registrations are per issuer).
 *
 * @example
 * await store.get(registrationKey('https://auth.example.com'));
 */
export function registrationKey(issuer: string): string {
  return `oauth:registration ${issuer}`;
}

/**
 * Store key of the tokens one authorization server issued for one resource.
 *
 * @example
 * await store.get(tokensKey('https://auth.example.com', 'https://mcp.example.com/mcp'));
 */
export function tokensKey(issuer: string, resource: string): string {
  return `oauth:tokens ${issuer} ${resource}`;
}
