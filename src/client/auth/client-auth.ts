/**
 * How the OAuth client authenticates at a token endpoint: the one rule for choosing the method,
 * shared by the code flow, the machine grants and dynamic registration, and the one
 * `client_secret_basic` encoder (src/core/oauth-basic.ts, which the resource server uses too).
 */
import * as oauth from 'oauth4webapi';
import { oauthBasicAuthorization } from '../../core/oauth-basic.js';
import { AuthorizationError } from './errors.js';

/**
 * A client registration with one authorization server.
 *
 * @example
 * const registration: ClientRegistration = { client_id: 'abc', client_secret: 's3cret', token_endpoint_auth_method: 'client_secret_basic' };
 */
export interface ClientRegistration {
  readonly client_id: string;
  readonly client_secret?: string;
  /** `client_secret_basic`, `client_secret_post` or `none`; when absent, picked from the server's metadata. */
  readonly token_endpoint_auth_method?: string;
  /** When the secret expires (seconds since the epoch; 0 = never), as RFC 7591 reports it. */
  readonly client_secret_expires_at?: number;
}

/**
 * The client secret method to use at `as`: `client_secret_basic` when the server lists it or lists
 * nothing (RFC 8414 §2's default), else `client_secret_post` when it lists that, else undefined
 * (the server takes neither). Then the code flow, holding a secret the server issued (RFC 6749
 * §2.3.1: a server that issues client passwords must accept Basic), uses `client_secret_basic`;
 * the machine grants, holding pre-registered credentials, fail with `registration` before the
 * secret is sent ({@link requireSecretAuthMethod}). Dynamic registration asks for a public client
 * (`none`) whenever the server allows it, else for this method.
 *
 * @example
 * secretAuthMethod({ issuer, token_endpoint_auth_methods_supported: ['client_secret_post'] }); // 'client_secret_post'
 */
export function secretAuthMethod(
  as: oauth.AuthorizationServer,
): 'client_secret_basic' | 'client_secret_post' | undefined {
  const supported = as.token_endpoint_auth_methods_supported;
  if (!supported || supported.includes('client_secret_basic')) return 'client_secret_basic';
  return supported.includes('client_secret_post') ? 'client_secret_post' : undefined;
}

/**
 * {@link secretAuthMethod}, or a `registration` error naming what the server lists.
 *
 * @example
 * const method = requireSecretAuthMethod(as);
 */
export function requireSecretAuthMethod(
  as: oauth.AuthorizationServer,
): 'client_secret_basic' | 'client_secret_post' {
  const method = secretAuthMethod(as);
  if (method) return method;
  // Credentials this server cannot take: a registration problem, not a token one.
  const supported = as.token_endpoint_auth_methods_supported ?? [];
  throw new AuthorizationError(
    'registration',
    `${as.issuer} supports neither client_secret_basic nor client_secret_post (it lists ${JSON.stringify(supported)})`,
  );
}

/**
 * The token endpoint authentication for `registration` with `as`: the registration's own method
 * when it has one, else (with a secret) {@link secretAuthMethod} falling back to
 * `client_secret_basic`, else `none` (a public client).
 *
 * @example
 * const auth = clientAuthentication({ client_id: 'abc', client_secret: 's' }, as); // client_secret_basic
 */
export function clientAuthentication(
  registration: ClientRegistration,
  as: oauth.AuthorizationServer,
): oauth.ClientAuth {
  const secret = registration.client_secret;
  const method =
    registration.token_endpoint_auth_method ??
    (secret ? (secretAuthMethod(as) ?? 'client_secret_basic') : 'none');
  switch (method) {
    case 'none':
      return oauth.None();
    case 'client_secret_basic':
    case 'client_secret_post':
      if (!secret) {
        throw new AuthorizationError(
          'registration',
          `token endpoint auth method ${method} needs a client secret, and the registration has none`,
        );
      }
      return method === 'client_secret_basic' ? clientSecretBasic(secret) : oauth.ClientSecretPost(secret);
    default:
      throw new AuthorizationError(
        'registration',
        `token endpoint auth method ${method} is not supported by this client`,
      );
  }
}

/**
 * RFC 6749 §2.3.1 Basic authentication (both parts form-encoded first). oauth4webapi's own also
 * escapes `-._~!*'()`; servers that do not form-decode the credentials (common, and the MCP
 * conformance suite's) would then see another client ID.
 *
 * @example
 * const auth = clientSecretBasic('s3cr3t'); // an oauth4webapi ClientAuth
 */
export function clientSecretBasic(secret: string): oauth.ClientAuth {
  return (_as, client, _body, headers) => {
    headers.set('authorization', oauthBasicAuthorization(client.client_id, secret));
  };
}
