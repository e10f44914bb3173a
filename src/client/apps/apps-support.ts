/**
 * `appsSupport()`: the client (a host that renders MCP Apps) declares `io.modelcontextprotocol/ui`
 * with the MIME types it can render.
 */
import { APP_MIME_TYPE, APPS_EXTENSION_ID } from '../../core/apps-wire.js';
import type { Extension } from '../../core/extensions.js';
import type { McpClient } from '../mcp-client.js';

/**
 * The MCP Apps extension for `McpClient.extend`: declares `{ mimeTypes: ['text/html;profile=mcp-app'] }`
 * (or the types given, which must include it). Only a client that actually renders apps (a host
 * with a sandboxed iframe) should declare it: servers then list app-only tools to it.
 *
 * @example
 * const client = new McpClient({ name: 'my-host', version: '1.0.0' }).extend(appsSupport());
 * await client.connect(transport);
 * client.serverExtension(APPS_EXTENSION_ID); // {} when the server has apps
 */
export function appsSupport(options: { mimeTypes?: readonly string[] } = {}): Extension<McpClient> {
  const mimeTypes = options.mimeTypes ?? [APP_MIME_TYPE];
  if (
    !Array.isArray(mimeTypes) ||
    !mimeTypes.includes(APP_MIME_TYPE) ||
    mimeTypes.some((t) => typeof t !== 'string')
  )
    throw new TypeError(`appsSupport: mimeTypes is a list of strings that includes ${APP_MIME_TYPE}`);
  return { id: APPS_EXTENSION_ID, settings: { mimeTypes: [...mimeTypes] } };
}
