/**
 * Extensions (SEP-2133): optional, composable additions to MCP, each named
 * `{vendor-prefix}/{extension-name}` and negotiated under `capabilities.extensions`, where each
 * side lists the extensions it supports with a settings object (`{}` when there are none). The
 * same shape serves both eras: `initialize` (legacy), `server/discover` and every request's
 * `_meta` client capabilities (2026-07-28).
 */
import { isJsonObject, type JsonObject } from './jsonrpc.js';

/**
 * What one side lists under `capabilities.extensions`: settings per extension identifier.
 *
 * @example
 * const extensions: ExtensionMap = { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } };
 */
export type ExtensionMap = { [id: string]: JsonObject };

// A reverse-DNS prefix of dot-separated labels, a slash, and a name (SEP-2133's identifier form);
// the name may have slash-separated segments (`io.modelcontextprotocol/auth/dpop`, as the
// official conformance suite names the authorization extensions).
const EXTENSION_ID =
  /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+(\/[A-Za-z0-9][A-Za-z0-9._-]*)+$/;

/**
 * True for a well-formed extension identifier: `{vendor-prefix}/{extension-name}` with a
 * reverse-DNS prefix (`com.example/search`, `io.modelcontextprotocol/ui`).
 *
 * @example
 * isExtensionId('io.modelcontextprotocol/ui'); // true
 * isExtensionId('ui'); // false
 */
export function isExtensionId(id: unknown): id is string {
  return typeof id === 'string' && id.length <= 256 && EXTENSION_ID.test(id);
}

/**
 * The settings a capabilities object declares for extension `id`, or undefined when it does not
 * declare it (a missing `extensions`, or anything but an object under `id`, declares nothing).
 *
 * @example
 * extensionSettings(client.serverCapabilities, 'io.modelcontextprotocol/ui'); // { ... } or undefined
 */
export function extensionSettings(capabilities: unknown, id: string): JsonObject | undefined {
  if (!isJsonObject(capabilities)) return undefined;
  const extensions = capabilities.extensions;
  if (!isJsonObject(extensions)) return undefined;
  const settings = extensions[id];
  return isJsonObject(settings) ? settings : undefined;
}

/**
 * A copy of `capabilities` that also declares extension `id` with `settings` (`{}` by default);
 * other extensions stay as they were.
 *
 * @example
 * withExtension({ tools: {} }, 'com.example/search', { depth: 2 });
 * // { tools: {}, extensions: { 'com.example/search': { depth: 2 } } }
 */
export function withExtension<C extends object>(capabilities: C, id: string, settings: JsonObject = {}): C {
  const current = (capabilities as { extensions?: unknown }).extensions;
  return {
    ...capabilities,
    extensions: { ...(isJsonObject(current) ? current : {}), [id]: settings },
  };
}

/**
 * Throws a TypeError unless `id` is a well-formed extension identifier and `settings` (when
 * given) a plain JSON object: checked when an extension is added, so a typo fails at start-up
 * rather than as an extension no peer recognises.
 *
 * @example
 * checkExtension('com.example/search', {});
 */
export function checkExtension(id: unknown, settings: unknown): void {
  if (!isExtensionId(id))
    throw new TypeError(
      `An extension identifier is "{vendor-prefix}/{extension-name}" with a reverse-DNS prefix (e.g. "com.example/search"), got ${JSON.stringify(id)}`,
    );
  if (settings !== undefined && !isJsonObject(settings))
    throw new TypeError(`The settings of extension ${id} must be a JSON object`);
}

/**
 * An extension as code: its identifier, the settings it declares, and a `setup` that adds what it
 * brings (methods, interceptors, resources, tools, event listeners) to the `Host` it is added to:
 * `McpServer.extend`, `Server.extend` or `McpClient.extend`. Setup runs once, when the extension
 * is added, before any peer connects; the core never needs to know the extension exists.
 *
 * @example
 * const search: Extension<McpServer> = {
 *   id: 'com.example/search',
 *   settings: { maxResults: 50 },
 *   setup(server) {
 *     server.method('search/query', async (params, ctx) => ({ hits: [] }));
 *   },
 * };
 * new McpServer({ name: 'demo', version: '1.0.0' }).extend(search);
 */
export interface Extension<Host> {
  /** `{vendor-prefix}/{extension-name}`, e.g. `com.example/search`. */
  readonly id: string;
  /** Declared under `capabilities.extensions[id]`; `{}` when omitted. */
  readonly settings?: JsonObject;
  /** Adds the extension's parts to `host`. */
  setup?(host: Host): void;
}

/**
 * The capabilities `capabilities` become once `extension` is added to them: checked (identifier,
 * settings, not added twice) and declared. The `extend` methods of both sides use it.
 *
 * @example
 * server.capabilities = declareExtension(server.capabilities, { id: 'com.example/search' });
 */
export function declareExtension<C extends object>(capabilities: C, extension: Extension<unknown>): C {
  if (typeof extension !== 'object' || extension === null)
    throw new TypeError('extend: an extension is an object with an id');
  checkExtension(extension.id, extension.settings);
  if (extensionSettings(capabilities, extension.id) !== undefined)
    throw new Error(`Extension ${extension.id} is already declared`);
  if (extension.setup !== undefined && typeof extension.setup !== 'function')
    throw new TypeError(`The setup of extension ${extension.id} must be a function`);
  return withExtension(capabilities, extension.id, { ...extension.settings });
}
