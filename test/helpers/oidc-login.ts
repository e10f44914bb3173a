/**
 * A headless user agent for oidc-provider's development interactions: an AuthorizationRedirect
 * that follows the authorization URL with fetch, keeps the provider's cookies like a browser,
 * signs in with any username, consents, and returns the redirect to the client's redirect_uri.
 */
import type { AuthorizationRedirect } from 'keel-mcp/core';

export interface OidcLoginOptions {
  /** The account to sign in as (the tokens' `sub`). Default `alice`. */
  username?: string;
  /** Approve the consent prompt (default) or abort it (the client then gets `access_denied`). */
  consent?: 'approve' | 'deny';
  /** Most requests for one authorization; past it the login fails. Default 20. */
  maxSteps?: number;
}

/** What a headless login did, for tests that check the flow itself. */
export interface OidcLoginRecord {
  /** The prompts answered, in order (`login`, `consent`). */
  readonly prompts: string[];
  /** Authorization URLs handled. */
  readonly authorizations: URL[];
}

interface Cookie {
  name: string;
  value: string;
  path: string;
}

/**
 * A headless login. The cookie jar (the provider's session) lives as long as the returned
 * function, as a browser's would: a second authorization (step-up) may skip the login and only
 * ask for consent.
 */
export function oidcLogin(options: OidcLoginOptions = {}): AuthorizationRedirect & OidcLoginRecord {
  const { username = 'alice', consent = 'approve', maxSteps = 20 } = options;
  const jar = new Map<string, Cookie>();
  const prompts: string[] = [];
  const authorizations: URL[] = [];

  const redirect = async (authorizationUrl: URL, signal: AbortSignal): Promise<URL> => {
    authorizations.push(authorizationUrl);
    const provider = authorizationUrl.origin;
    const redirectUri = authorizationUrl.searchParams.get('redirect_uri');
    if (!redirectUri) throw new Error('oidc-login: the authorization URL has no redirect_uri');
    const target = new URL(redirectUri);

    let url = authorizationUrl;
    let form: URLSearchParams | undefined;
    for (let step = 0; step < maxSteps; step++) {
      if (url.origin === target.origin && url.pathname === target.pathname) return url;
      if (url.origin !== provider)
        throw new Error(`oidc-login: redirected off the provider, to ${url.origin}`);
      const response = await fetch(url, {
        method: form ? 'POST' : 'GET',
        redirect: 'manual',
        signal,
        headers: {
          cookie: cookieHeader(jar, url),
          ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        },
        ...(form ? { body: form.toString() } : {}),
      });
      storeCookies(jar, response.headers.getSetCookie());
      form = undefined;
      const location = response.headers.get('location');
      if (response.status >= 300 && response.status < 400 && location) {
        await response.body?.cancel();
        url = new URL(location, url);
        continue;
      }
      const html = await response.text();
      if (response.status !== 200) {
        throw new Error(`oidc-login: ${response.status} from ${url.pathname}: ${errorOf(html)}`);
      }
      const prompt = /name="prompt" value="([a-z]+)"/.exec(html)?.[1];
      const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
      if (!prompt || !action) throw new Error(`oidc-login: no interaction form at ${url.pathname}`);
      prompts.push(prompt);
      const submit = new URL(action.replaceAll('&amp;', '&'), url);
      if (prompt === 'login') {
        form = new URLSearchParams({ prompt, login: username, password: 'any' });
        url = submit;
      } else if (prompt === 'consent' && consent === 'approve') {
        form = new URLSearchParams({ prompt });
        url = submit;
      } else if (prompt === 'consent') {
        url = new URL(`${submit.pathname}/abort`, submit);
      } else {
        throw new Error(`oidc-login: unknown prompt ${prompt}`);
      }
    }
    throw new Error(
      `oidc-login: no redirect to ${target.origin}${target.pathname} after ${maxSteps} requests`,
    );
  };
  return Object.assign(redirect, { prompts, authorizations });
}

/** Cookies whose path covers the request's (RFC 6265 §5.1.4), as a Cookie header. */
function cookieHeader(jar: Map<string, Cookie>, url: URL): string {
  const sent: string[] = [];
  for (const { name, value, path } of jar.values()) {
    const covers = url.pathname === path || url.pathname.startsWith(path.endsWith('/') ? path : `${path}/`);
    if (covers) sent.push(`${name}=${value}`);
  }
  return sent.join('; ');
}

/** Keep each Set-Cookie (by name and path); an expired or emptied one is removed. */
function storeCookies(jar: Map<string, Cookie>, setCookies: string[]): void {
  for (const line of setCookies) {
    const [pair = '', ...attributes] = line.split(';').map((part) => part.trim());
    const equals = pair.indexOf('=');
    if (equals <= 0) continue;
    const name = pair.slice(0, equals);
    const value = pair.slice(equals + 1);
    let path = '/';
    let expired = value === '';
    for (const attribute of attributes) {
      const [key = '', attributeValue = ''] = attribute.split('=');
      if (key.toLowerCase() === 'path' && attributeValue.startsWith('/')) path = attributeValue;
      if (key.toLowerCase() === 'max-age' && Number(attributeValue) <= 0) expired = true;
      if (key.toLowerCase() === 'expires' && Date.parse(attributeValue) <= Date.now()) expired = true;
    }
    if (expired) jar.delete(`${name} ${path}`);
    else jar.set(`${name} ${path}`, { name, value, path });
  }
}

/** The error oidc-provider's error page shows (`error` and `error_description`), for the message. */
function errorOf(html: string): string {
  const fields = [...html.matchAll(/<strong>([a-z_]+)<\/strong>: ([^<]*)</g)].map(
    ([, key, value]) => `${key}=${value}`,
  );
  return fields.length ? fields.join(', ') : 'no error detail';
}
