/**
 * How a machine client proves who it is at a token endpoint: a client secret (HTTP Basic or form
 * body, whichever the authorization server supports) or a `private_key_jwt` assertion (RFC 7523
 * §2.2: iss = sub = client_id, aud = the issuer, a fresh jti, a 60-second lifetime; built and
 * signed by oauth4webapi). The private key comes as a WebCrypto key or PKCS#8 PEM (imported by
 * `jose`, which runs on every runtime).
 */
import * as oauth from 'oauth4webapi';
import { clientSecretBasic, requireSecretAuthMethod } from '../client-auth.js';
import { AuthorizationError } from '../errors.js';

/**
 * A confidential client's credentials at the authorization server.
 *
 * @example
 * const secret: MachineClientCredentials = { clientId: 'svc', clientSecret: process.env.SECRET! };
 * const jwt: MachineClientCredentials = { clientId: 'svc', privateKey: pem, algorithm: 'ES256' };
 */
export type MachineClientCredentials = ClientSecretCredentials | PrivateKeyJwtCredentials;

/**
 * `client_secret_basic` or `client_secret_post`.
 *
 * @example
 * const credentials: ClientSecretCredentials = { clientId: 'svc', clientSecret: 's3cr3t', method: 'client_secret_post' };
 */
export interface ClientSecretCredentials {
  readonly clientId: string;
  readonly clientSecret: string;
  /**
   * Default: `client_secret_basic` when the server lists it or lists nothing (RFC 8414's
   * default), else `client_secret_post` when it lists that (the rule of `secretAuthMethod`).
   */
  readonly method?: 'client_secret_basic' | 'client_secret_post';
}

/**
 * `private_key_jwt`: the client signs a short assertion with its private key.
 *
 * @example
 * const credentials: PrivateKeyJwtCredentials = { clientId: 'svc', privateKey: pkcs8Pem, algorithm: 'RS256', keyId: 'key-1' };
 */
export interface PrivateKeyJwtCredentials {
  readonly clientId: string;
  /** A signing `CryptoKey`, or the key as PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`). */
  readonly privateKey: CryptoKey | string;
  /** The JWS algorithm (`ES256`, `RS256`, `EdDSA`...). Needed for a PEM key; default `RS256`. */
  readonly algorithm?: string;
  /** `kid` of the assertion header, when the server holds several keys for the client. */
  readonly keyId?: string;
}

/**
 * Makes the oauth4webapi client authentication for `credentials` at `as`. A PEM key is imported
 * once per provider: pass the same `keyCache` every time.
 *
 * @example
 * const clientAuth = await clientAuthentication({ clientId: 'svc', clientSecret: 's' }, as, new Map());
 */
export async function clientAuthentication(
  credentials: MachineClientCredentials,
  as: oauth.AuthorizationServer,
  keyCache: Map<string, Promise<CryptoKey>>,
): Promise<oauth.ClientAuth> {
  if ('clientSecret' in credentials) {
    if (!credentials.clientSecret) throw new AuthorizationError('registration', 'the client secret is empty');
    const method = credentials.method ?? requireSecretAuthMethod(as);
    return method === 'client_secret_post'
      ? oauth.ClientSecretPost(credentials.clientSecret)
      : clientSecretBasic(credentials.clientSecret);
  }
  const key = await signingKey(credentials, keyCache);
  return oauth.PrivateKeyJwt(credentials.keyId === undefined ? key : { key, kid: credentials.keyId });
}

async function signingKey(
  credentials: PrivateKeyJwtCredentials,
  keyCache: Map<string, Promise<CryptoKey>>,
): Promise<CryptoKey> {
  const { privateKey } = credentials;
  if (typeof privateKey !== 'string') return privateKey;
  const algorithm = credentials.algorithm ?? 'RS256';
  let imported = keyCache.get(algorithm);
  if (!imported) {
    // jose is loaded only here: a client that never signs an assertion does not pay its import.
    imported = import('jose')
      .then(({ importPKCS8 }) => importPKCS8(privateKey, algorithm))
      .catch((error: unknown) => {
        keyCache.delete(algorithm);
        // jose's message describes the PEM, never its content; the key itself stays out of it.
        throw new AuthorizationError(
          'registration',
          `the private key is not a PKCS#8 ${algorithm} key: ${error instanceof Error ? error.message : 'unreadable'}`,
        );
      });
    keyCache.set(algorithm, imported);
  }
  return imported;
}
