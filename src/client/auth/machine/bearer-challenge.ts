/**
 * The parameters of a `Bearer` challenge (RFC 6750 §3) that a machine grant acts on: `scope` (what
 * to ask for), `error` (`invalid_token`, `insufficient_scope`) and `resource_metadata` (RFC 9728,
 * where discovery starts). Other schemes in the same header are skipped.
 */

/** What a `WWW-Authenticate: Bearer ...` header asks for. */
export interface BearerChallenge {
  readonly error?: string;
  readonly scope?: string;
  readonly resourceMetadata?: string;
}

/**
 * Reads the first `Bearer` challenge of a `WWW-Authenticate` value; an empty object when there is
 * none or it cannot be read (a malformed header must not fail the request on its own).
 *
 * @example
 * parseBearerChallenge('Bearer error="insufficient_scope", scope="files:read files:write"').scope; // 'files:read files:write'
 */
export function parseBearerChallenge(header: string | undefined): BearerChallenge {
  if (!header || header.length > 8192) return {};
  const match = /(?:^|,)\s*bearer(?:\s+|$)/i.exec(header);
  if (!match) return {};
  const params: Record<string, string> = {};
  const pattern = /\s*([A-Za-z0-9_.-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,"]*))\s*(,|$)/y;
  pattern.lastIndex = match.index + match[0].length;
  for (;;) {
    const start = pattern.lastIndex;
    const param = pattern.exec(header);
    // Stop at the next scheme (a token not followed by `=`) or at anything unreadable.
    if (!param || param.index !== start) break;
    const name = param[1]!.toLowerCase();
    params[name] ??= param[2] !== undefined ? param[2].replace(/\\(.)/g, '$1') : (param[3] ?? '');
    if (param[4] === '' || pattern.lastIndex >= header.length) break;
  }
  return {
    ...(params.error ? { error: params.error } : {}),
    ...(params.scope ? { scope: params.scope } : {}),
    ...(params.resource_metadata ? { resourceMetadata: params.resource_metadata } : {}),
  };
}

/**
 * The space-separated union of scope strings, in first-seen order, without duplicates.
 *
 * @example
 * unionScopes('a b', 'b c'); // 'a b c'
 */
export function unionScopes(...scopes: (string | undefined)[]): string | undefined {
  const all = new Set<string>();
  for (const scope of scopes) for (const item of scope?.split(' ') ?? []) if (item) all.add(item);
  return all.size === 0 ? undefined : [...all].join(' ');
}
