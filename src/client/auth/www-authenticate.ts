/**
 * `WWW-Authenticate` parsing (RFC 9110 §11.6.1): what an MCP server says when it refuses a request.
 * oauth4webapi parses challenges only inside its own response processing, so the transport's
 * header string is read here.
 */

/**
 * One challenge of a `WWW-Authenticate` header: the scheme (lower-cased) and its auth-params
 * (names lower-cased, values unquoted).
 *
 * @example
 * const [bearer] = parseWwwAuthenticate('Bearer realm="mcp", scope="read"'); // { scheme: 'bearer', params: { realm: 'mcp', scope: 'read' } }
 */
export interface WwwAuthenticateChallenge {
  readonly scheme: string;
  readonly params: Readonly<Record<string, string>>;
  /** The token68 form (`Scheme abc==`), when the challenge has one instead of params. */
  readonly token68?: string;
}

/**
 * The parts of a `Bearer` challenge an MCP client acts on (RFC 6750 §3, RFC 9728 §5.1).
 *
 * @example
 * const bearer = parseBearerChallenge(challenge.wwwAuthenticate);
 * if (bearer?.error === 'insufficient_scope') stepUp(bearer.scope);
 */
export interface BearerChallenge {
  /** `resource_metadata`: where the protected resource metadata is. */
  readonly resourceMetadata?: string;
  /** `scope`: the scopes the request needs (space-separated). */
  readonly scope?: string;
  /** `error`: e.g. `invalid_token`, `insufficient_scope`. */
  readonly error?: string;
  /** `error_description`. */
  readonly errorDescription?: string;
  /** Every param of the challenge. */
  readonly params: Readonly<Record<string, string>>;
}

const TOKEN = /[!#$%&'*+.^_`|~0-9A-Za-z-]/;

/**
 * Parse every challenge of a `WWW-Authenticate` header. Malformed parts are skipped rather than
 * thrown on: a refusal must still lead to the well-known discovery fallback.
 *
 * @example
 * parseWwwAuthenticate('Basic realm="x", Bearer error="invalid_token"').map((c) => c.scheme); // ['basic', 'bearer']
 */
export function parseWwwAuthenticate(header: string): WwwAuthenticateChallenge[] {
  const challenges: { scheme: string; params: Record<string, string>; token68?: string }[] = [];
  let i = 0;
  const n = header.length;
  const skip = (chars: RegExp): void => {
    while (i < n && chars.test(header[i] ?? '')) i++;
  };
  const readToken = (): string => {
    const start = i;
    while (i < n && TOKEN.test(header[i] ?? '')) i++;
    return header.slice(start, i);
  };
  const readValue = (): string => {
    if (header[i] !== '"') {
      const start = i;
      while (i < n && header[i] !== ',' && !/\s/.test(header[i] ?? '')) i++;
      return header.slice(start, i);
    }
    i++;
    let value = '';
    while (i < n && header[i] !== '"') {
      if (header[i] === '\\' && i + 1 < n) i++;
      value += header[i];
      i++;
    }
    i++; // closing quote (or end of input)
    return value;
  };
  while (i < n) {
    skip(/[\s,]/);
    const scheme = readToken();
    if (!scheme) {
      i++; // not a token: skip the character and resynchronise
      continue;
    }
    const challenge: { scheme: string; params: Record<string, string>; token68?: string } = {
      scheme: scheme.toLowerCase(),
      params: {},
    };
    challenges.push(challenge);
    for (;;) {
      skip(/[\s,]/);
      const mark = i;
      const name = readToken();
      if (!name) break;
      skip(/[ \t]/);
      if (header[i] !== '=') {
        // A token not followed by '=' starts the next challenge.
        i = mark;
        break;
      }
      i++;
      if (header[i] === '=' || i >= n || header[i] === ',') {
        // token68 (`Scheme abc==`): the '=' padding belongs to the token.
        while (i < n && header[i] === '=') i++;
        challenge.token68 = header.slice(mark, i).trim();
        continue;
      }
      skip(/[ \t]/);
      challenge.params[name.toLowerCase()] = readValue();
    }
  }
  return challenges;
}

/**
 * The `Bearer` challenge of a `WWW-Authenticate` header, else its `DPoP` challenge (RFC 9449 §7.1:
 * same parameters), or undefined when there is neither.
 *
 * @example
 * parseBearerChallenge('Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource"')?.resourceMetadata;
 */
export function parseBearerChallenge(header: string | undefined): BearerChallenge | undefined {
  if (!header) return undefined;
  const challenges = parseWwwAuthenticate(header);
  // A DPoP-only server (RFC 9449 §7.1) carries the same parameters in its DPoP challenge.
  const bearer = challenges.find((c) => c.scheme === 'bearer') ?? challenges.find((c) => c.scheme === 'dpop');
  if (!bearer) return undefined;
  const p = bearer.params;
  return {
    ...(p.resource_metadata !== undefined && { resourceMetadata: p.resource_metadata }),
    ...(p.scope !== undefined && { scope: p.scope }),
    ...(p.error !== undefined && { error: p.error }),
    ...(p.error_description !== undefined && { errorDescription: p.error_description }),
    params: p,
  };
}
