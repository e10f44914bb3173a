/**
 * OAuth for HTTP servers that answer 401 (not wired yet).
 */
import type { HttpAuthProvider } from '../core/auth.js';
import type { CommonOptions } from './session.js';

/**
 * @example
 * const auth = await oauthFor(new URL('https://h/mcp'), options, console.error);
 */
export async function oauthFor(
  _url: URL,
  _options: CommonOptions,
  _print: (line: string) => void,
): Promise<HttpAuthProvider | undefined> {
  return undefined;
}
