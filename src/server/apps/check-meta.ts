/**
 * Registration-time checks of MCP Apps metadata: a typo in a CSP origin or a permission name
 * fails when the server starts, not as a UI the host silently blocks.
 */
import type { AppCsp, AppPermissions, AppResourceMeta, AppVisibility } from '../../core/apps-wire.js';

const CSP_KEYS = ['connectDomains', 'resourceDomains', 'frameDomains', 'baseUriDomains'] as const;
const PERMISSIONS = ['camera', 'microphone', 'geolocation', 'clipboardWrite'] as const;
// A CSP source with a scheme: `https://host`, `https://*.host`, an optional port and path. No
// whitespace, quotes, `;` or `,`, which would let an entry add directives to the host's policy.
const ORIGIN = /^[a-z][a-z0-9+.-]*:\/\/(\*\.)?[A-Za-z0-9.-]+(:(\d{1,5}|\*))?(\/[^\s;,'"]*)?$/;

function isPlainObject(value: unknown): value is { [key: string]: unknown } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function unknownKey(value: { [key: string]: unknown }, known: readonly string[]): string | undefined {
  return Object.keys(value).find((key) => !known.includes(key));
}

/**
 * Throws a TypeError naming `where` unless `uri` is a `ui://` URI with something after the scheme.
 *
 * @example
 * checkUiUri('ui://weather/view.html', 'appResource'); // ok
 * checkUiUri('https://example.com/view.html', 'appResource'); // throws
 */
export function checkUiUri(uri: unknown, where: string): asserts uri is string {
  if (typeof uri !== 'string' || !uri.startsWith('ui://') || uri.length === 'ui://'.length || /\s/.test(uri))
    throw new TypeError(`${where}: an MCP App resource URI starts with "ui://", got ${JSON.stringify(uri)}`);
}

function checkCsp(csp: unknown, where: string): AppCsp {
  if (!isPlainObject(csp)) throw new TypeError(`${where}: csp must be an object`);
  const extra = unknownKey(csp, CSP_KEYS);
  if (extra !== undefined)
    throw new TypeError(`${where}: unknown csp field "${extra}" (${CSP_KEYS.join(', ')})`);
  const copy: AppCsp = {};
  for (const key of CSP_KEYS) {
    const list = csp[key];
    if (list === undefined) continue;
    if (!Array.isArray(list)) throw new TypeError(`${where}: csp.${key} must be an array of origins`);
    for (const origin of list)
      if (typeof origin !== 'string' || !ORIGIN.test(origin))
        throw new TypeError(
          `${where}: csp.${key} entries are origins like "https://api.example.com" or "https://*.example.com", got ${JSON.stringify(origin)}`,
        );
    copy[key] = [...(list as string[])];
  }
  return copy;
}

function checkPermissions(permissions: unknown, where: string): AppPermissions {
  if (!isPlainObject(permissions)) throw new TypeError(`${where}: permissions must be an object`);
  const extra = unknownKey(permissions, PERMISSIONS);
  if (extra !== undefined)
    throw new TypeError(`${where}: unknown permission "${extra}" (${PERMISSIONS.join(', ')})`);
  const copy: AppPermissions = {};
  for (const key of PERMISSIONS) {
    const value = permissions[key];
    if (value === undefined) continue;
    if (!isPlainObject(value) || Object.keys(value).length > 0)
      throw new TypeError(`${where}: permissions.${key} is requested with {}`);
    copy[key] = {};
  }
  return copy;
}

/**
 * A checked copy of a UI resource's `_meta.ui` (unknown fields, malformed origins, permissions
 * other than the spec's four, a non-boolean `prefersBorder`: TypeError naming `where`).
 *
 * @example
 * checkResourceMeta({ csp: { connectDomains: ['https://api.example.com'] } }, 'appResource ui://x');
 */
export function checkResourceMeta(meta: AppResourceMeta, where: string): AppResourceMeta {
  const record = meta as unknown as { [key: string]: unknown };
  const extra = unknownKey(record, ['csp', 'permissions', 'domain', 'prefersBorder']);
  if (extra !== undefined)
    throw new TypeError(
      `${where}: unknown MCP Apps resource setting "${extra}" (csp, permissions, domain, prefersBorder)`,
    );
  const copy: AppResourceMeta = {};
  if (meta.csp !== undefined) copy.csp = checkCsp(meta.csp, where);
  if (meta.permissions !== undefined) copy.permissions = checkPermissions(meta.permissions, where);
  if (meta.domain !== undefined) {
    if (typeof meta.domain !== 'string' || meta.domain === '' || /[\s;,'"]/.test(meta.domain))
      throw new TypeError(`${where}: domain must be a host name, got ${JSON.stringify(meta.domain)}`);
    copy.domain = meta.domain;
  }
  if (meta.prefersBorder !== undefined) {
    if (typeof meta.prefersBorder !== 'boolean')
      throw new TypeError(`${where}: prefersBorder must be a boolean`);
    copy.prefersBorder = meta.prefersBorder;
  }
  return copy;
}

/**
 * A checked copy of a tool's `visibility`: a non-empty list of `model` and `app`, no repeats.
 *
 * @example
 * checkVisibility(['app'], 'appTool refresh'); // ['app']
 */
export function checkVisibility(visibility: unknown, where: string): AppVisibility[] {
  if (
    !Array.isArray(visibility) ||
    visibility.length === 0 ||
    visibility.some((item) => item !== 'model' && item !== 'app') ||
    new Set(visibility).size !== visibility.length
  )
    throw new TypeError(
      `${where}: visibility is a non-empty list of "model" and "app", got ${JSON.stringify(visibility)}`,
    );
  return [...(visibility as AppVisibility[])];
}
