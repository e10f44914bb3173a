import * as oauth from 'oauth4webapi';
import { AuthorizationError } from './errors.js';
import type { ClientRegistration } from './registration.js';

/**
 * The token endpoint authentication for `registration` with `as`: the registration's own method
 * when it has one, else (with a secret) `client_secret_basic` unless the server only lists
 * `client_secret_post`, else `none` (a public client).
 *
 * @example
 * const auth = clientAuthentication({ client_id: 'abc', client_secret: 's' }, as); // client_secret_basic
 */
export function clientAuthentication(
  registration: ClientRegistration,
  as: oauth.AuthorizationServer,
): oauth.ClientAuth {
  const secret = registration.client_secret;
  const method = registration.token_endpoint_auth_method ?? (secret ? secretMethod(as) : 'none');
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

function secretMethod(as: oauth.AuthorizationServer): 'client_secret_basic' | 'client_secret_post' {
  const supported = as.token_endpoint_auth_methods_supported;
  // RFC 8414 §2: the default, when the server lists nothing, is client_secret_basic.
  if (!supported || supported.includes('client_secret_basic')) return 'client_secret_basic';
  return supported.includes('client_secret_post') ? 'client_secret_post' : 'client_secret_basic';
}

/**
 * RFC 6749 §2.3.1 Basic authentication. oauth4webapi's own percent-encodes even `-`, `_`, `.` and
 * `~` in the client ID and secret; servers that do not decode the credentials (common, and the MCP
 * conformance suite's) then see another client ID. `encodeURIComponent` leaves those characters
 * as they are and still encodes `:`, `%`, space and non-ASCII, which is what keeps the header
 * unambiguous.
 */
function clientSecretBasic(secret: string): oauth.ClientAuth {
  return (_as, client, _body, headers) => {
    headers.set(
      'authorization',
      `Basic ${btoa(`${encodeURIComponent(client.client_id)}:${encodeURIComponent(secret)}`)}`,
    );
  };
}
