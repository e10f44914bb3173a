/**
 * `apps()`: the MCP Apps extension for `McpServer.extend`. It declares `io.modelcontextprotocol/ui`
 * and gives the server the record of its UI resources that `appTool` checks links against.
 */
import type { Extension } from '../../core/extensions.js';
import type { McpServer } from '../mcp-server.js';
import type { ViewCaller } from '../views/visibility.js';
import { extensionSettings } from '../../core/extensions.js';
import { APPS_EXTENSION_ID } from '../../core/apps-wire.js';

// The ui:// URIs registered with appResource, per server that added apps().
const uiResources = new WeakMap<McpServer, Set<string>>();

/**
 * The MCP Apps extension (`io.modelcontextprotocol/ui`, SEP-1865). Add it before registering UI
 * resources ({@link appResource}) and the tools that link to them ({@link appTool}). The spec
 * defines no server settings, so the server declares `{}`.
 *
 * @example
 * const server = new McpServer({ name: 'weather', version: '1.0.0' }).extend(apps());
 * appResource(server, 'Forecast view', 'ui://weather/view.html', {}, () => html);
 * appTool(server, 'forecast', { description: 'Forecast', ui: { resourceUri: 'ui://weather/view.html' } }, () => 'Sunny, 21 °C');
 */
export function apps(): Extension<McpServer> {
  return {
    id: APPS_EXTENSION_ID,
    setup(server) {
      uiResources.set(server, new Set());
    },
  };
}

/** @internal The UI resource URIs of `server`; throws unless `server.extend(apps())` ran. */
export function uiResourcesOf(server: McpServer, where: string): Set<string> {
  const set = uiResources.get(server);
  if (set === undefined) throw new Error(`${where}: add the MCP Apps extension first: server.extend(apps())`);
  return set;
}

/**
 * True when the caller declared MCP Apps support (`capabilities.extensions["io.modelcontextprotocol/ui"]`:
 * at `initialize` in the legacy era, in the request's `_meta` in 2026-07-28). Usable as a
 * `visibleTo` rule, or in a handler through `ctx.clientExtension(APPS_EXTENSION_ID)`.
 *
 * @example
 * server.tool('ui-debug', { description: 'UI hosts only', visibleTo: callerSupportsApps }, () => 'ok');
 */
export function callerSupportsApps(caller: ViewCaller): boolean {
  return extensionSettings(caller.session.clientCapabilities, APPS_EXTENSION_ID) !== undefined;
}
