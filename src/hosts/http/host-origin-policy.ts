/**
 * DNS-rebinding protection: a local server must refuse requests whose `Host` or `Origin` names a
 * foreign site (a browser page on evil.example can resolve its own name to 127.0.0.1).
 */

/**
 * Which `Host` and `Origin` values a handler accepts.
 *
 * @example
 * const policy = new HostOriginPolicy(['localhost', 'mcp.example.com:8443'], ['https://app.example.com']);
 * policy.hostAllowed('localhost:3000');          // true
 * policy.originAllowed('http://evil.example');   // false
 */
export class HostOriginPolicy {
  private readonly hostNames = new Set<string>();
  private readonly hostPorts = new Set<string>();
  private readonly originNames = new Set<string>();
  private readonly origins = new Set<string>();

  constructor(hosts: readonly string[], origins: readonly string[]) {
    for (const entry of hosts) {
      const { name, port } = splitHost(entry.trim().toLowerCase());
      if (port === undefined) this.hostNames.add(name);
      else this.hostPorts.add(`${name}:${port}`);
    }
    for (const entry of origins) {
      const value = entry.trim().toLowerCase();
      if (value.includes('://')) {
        const origin = parseOrigin(value);
        if (origin) this.origins.add(origin.origin);
      } else {
        this.originNames.add(splitHost(value).name);
      }
    }
  }

  /** `Host` header value (`name`, `name:port`, `[v6]:port`). */
  hostAllowed(host: string | null): boolean {
    if (host === null) return false;
    const { name, port } = splitHost(host.trim().toLowerCase());
    if (this.hostNames.has(name)) return true;
    return port !== undefined && this.hostPorts.has(`${name}:${port}`);
  }

  /** `Origin` header value; a request without one (not from a browser) is always allowed. */
  originAllowed(origin: string | null): boolean {
    if (origin === null) return true;
    const url = parseOrigin(origin.trim().toLowerCase());
    if (!url) return false;
    return this.origins.has(url.origin) || this.originNames.has(url.hostname);
  }
}

/**
 * Longest part of a rejected header value quoted in a 403 message: enough to recognise a host or
 * origin, short enough that a hostile header cannot bloat the answer.
 *
 * @example
 * value.length > MAX_REPORTED_HEADER_CHARS; // the quote is cut and ends with "..."
 */
export const MAX_REPORTED_HEADER_CHARS = 100;

/**
 * The message of the 403 for a request `policy` refuses, or `undefined` when it is allowed. It
 * names the header and its value so a developer sees what to add to which option; the value is
 * the sender's own, but it is made visible ASCII (anything else becomes `?`) and cut at
 * {@link MAX_REPORTED_HEADER_CHARS}, so no control character or megabyte header is echoed.
 *
 * @example
 * describeRejection(policy, 'evil.example', null);
 * // 'Forbidden: Host "evil.example" is not allowed (see the allowedHosts option)'
 */
export function describeRejection(
  policy: HostOriginPolicy,
  host: string | null,
  origin: string | null,
): string | undefined {
  if (host === null) return 'Forbidden: the request has no Host header';
  if (!policy.hostAllowed(host))
    return `Forbidden: Host "${reportable(host)}" is not allowed (see the allowedHosts option)`;
  if (!policy.originAllowed(origin))
    return `Forbidden: Origin "${reportable(origin ?? '')}" is not allowed (see the allowedOrigins option)`;
  return undefined;
}

function reportable(value: string): string {
  const visible = value.replace(/[^\x21-\x7e]/g, '?');
  return visible.length > MAX_REPORTED_HEADER_CHARS
    ? `${visible.slice(0, MAX_REPORTED_HEADER_CHARS)}...`
    : visible;
}

function splitHost(value: string): { name: string; port: string | undefined } {
  if (value.startsWith('[')) {
    const end = value.indexOf(']');
    if (end < 0) return { name: value, port: undefined };
    const rest = value.slice(end + 1);
    return { name: value.slice(0, end + 1), port: rest.startsWith(':') ? rest.slice(1) : undefined };
  }
  const colon = value.lastIndexOf(':');
  if (colon < 0 || value.indexOf(':') !== colon) return { name: value, port: undefined };
  return { name: value.slice(0, colon), port: value.slice(colon + 1) };
}

function parseOrigin(value: string): URL | undefined {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined;
  } catch {
    return undefined;
  }
}
