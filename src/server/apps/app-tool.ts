/**
 * `appTool`: register a tool linked to its MCP App (`_meta.ui.resourceUri`) and/or callable only
 * from the UI (`_meta.ui.visibility: ['app']`), with the text fallback the spec asks for.
 */
import type { SchemaInput } from '../../core/schema/compile-schema.js';
import type { McpServer } from '../mcp-server.js';
import type { RegisteredTool, ToolConfig, ToolHandler, ToolReturn } from '../tool-types.js';
import { compileVisibility, type ViewCaller } from '../views/visibility.js';
import { callerSupportsApps, uiResourcesOf } from './apps-extension.js';
import { checkUiUri, checkVisibility } from './check-meta.js';
import { LEGACY_RESOURCE_URI_KEY, type AppToolMeta } from '../../core/apps-wire.js';

/**
 * A tool's config plus its MCP Apps link: `ui.resourceUri` (a `ui://` resource registered with
 * `appResource` on the same server) and/or `ui.visibility` (default `['model', 'app']`).
 *
 * @example
 * const config: AppToolConfig<undefined, undefined> = { description: 'Forecast', ui: { resourceUri: 'ui://weather/view.html' } };
 */
export type AppToolConfig<I extends SchemaInput | undefined, O extends SchemaInput | undefined> = ToolConfig<
  I,
  O
> & { ui: AppToolMeta };

/**
 * Register a tool with an MCP App. Throws at registration when `ui.resourceUri` is not a `ui://`
 * resource registered with {@link appResource} on this server, when `visibility` is malformed, or
 * when `_meta.ui` is also given by hand.
 *
 * Fallback, per the spec: a host without MCP Apps shows the tool as a plain tool, so its result
 * must make sense as text (a string, or `content` blocks; the UI gets the same result plus
 * `structuredContent`). A result with an empty `content` array fails the call with a clear
 * message. App-only tools (`visibility: ['app']`) exist only for callers that declared the
 * extension: to any other client they are absent from `tools/list` and unknown to `tools/call`,
 * since nothing but a UI is meant to call them.
 *
 * @example
 * appTool(server, 'forecast', { description: 'Forecast for a city', input: z.object({ city: z.string() }),
 *   ui: { resourceUri: 'ui://weather/view.html' } },
 *   ({ city }) => ({ content: [{ type: 'text', text: `${city}: sunny, 21 °C` }], structuredContent: { city, tempC: 21 } }));
 * appTool(server, 'refresh', { description: 'Refresh the view', ui: { resourceUri: 'ui://weather/view.html', visibility: ['app'] } },
 *   () => 'refreshed');
 */
export function appTool<
  I extends SchemaInput | undefined = undefined,
  O extends SchemaInput | undefined = undefined,
>(
  server: McpServer,
  name: string,
  config: AppToolConfig<I, O>,
  handler: ToolHandler<I, O>,
): RegisteredTool<I, O> {
  const where = `appTool ${JSON.stringify(name)}`;
  const known = uiResourcesOf(server, where);
  const { ui, ...toolConfig } = config ?? ({} as AppToolConfig<I, O>);
  if (typeof ui !== 'object' || ui === null)
    throw new TypeError(
      `${where}: ui { resourceUri?, visibility? } is required (a tool without a UI is server.tool)`,
    );
  const { resourceUri, visibility, ...extra } = ui as AppToolMeta & { [key: string]: unknown };
  const unknown = Object.keys(extra)[0];
  if (unknown !== undefined)
    throw new TypeError(
      `${where}: unknown ui field "${unknown}" (resourceUri, visibility; csp and permissions belong on the resource)`,
    );
  if (resourceUri === undefined && visibility === undefined)
    throw new TypeError(`${where}: ui needs a resourceUri or a visibility`);
  if (resourceUri !== undefined) {
    checkUiUri(resourceUri, where);
    if (!known.has(resourceUri))
      throw new Error(
        `${where}: ${resourceUri} is not a UI resource of this server (register it with appResource first)`,
      );
  }
  const checked = visibility === undefined ? undefined : checkVisibility(visibility, where);
  if (toolConfig._meta?.ui !== undefined || toolConfig._meta?.[LEGACY_RESOURCE_URI_KEY] !== undefined)
    throw new TypeError(`${where}: give the UI link as ui, not in _meta`);
  const meta: AppToolMeta = {
    ...(resourceUri !== undefined && { resourceUri }),
    ...(checked !== undefined && { visibility: checked }),
  };
  const appOnly = checked !== undefined && !checked.includes('model');
  return server.tool(
    name,
    {
      ...toolConfig,
      _meta: {
        ...toolConfig._meta,
        ui: meta,
        // Older hosts read only the flat key; ext-apps 2.0 writes both, and so does Keel.
        ...(resourceUri !== undefined && { [LEGACY_RESOURCE_URI_KEY]: resourceUri }),
      },
      ...(appOnly && { visibleTo: appOnlyRule(toolConfig.visibleTo, where) }),
    },
    withTextFallback(handler, name, toolConfig.output !== undefined),
  );
}

/** An app-only tool's `visibleTo`: the caller declared MCP Apps, and the user's own rule holds. */
function appOnlyRule(
  own: ToolConfig<undefined, undefined>['visibleTo'],
  where: string,
): (caller: ViewCaller) => boolean {
  if (own === undefined) return callerSupportsApps;
  if (typeof own === 'function') return (caller) => callerSupportsApps(caller) && own(caller);
  // A declarative rule reads only the token and never throws, so nothing is reported here.
  const rule = compileVisibility(own, where, () => undefined)!;
  return (caller) => callerSupportsApps(caller) && rule(caller);
}

/** The handler, checked to return content a host without the UI can show. */
function withTextFallback<I, O>(
  handler: ToolHandler<I, O>,
  name: string,
  structured: boolean,
): ToolHandler<I, O> {
  if (typeof handler !== 'function') return handler; // server.tool reports it
  const check = (result: ToolReturn<O>): ToolReturn<O> => {
    const blocks = structured ? undefined : (result as { content?: unknown } | null)?.content;
    if (Array.isArray(blocks) && blocks.length === 0 && (result as { isError?: unknown }).isError !== true)
      throw new Error(
        `Tool "${name}" returned no content: an MCP App tool must return content that makes sense as text for hosts without the UI`,
      );
    return result;
  };
  return (args, ctx) => {
    const result = handler(args, ctx);
    return result instanceof Promise ? result.then(check) : check(result);
  };
}
