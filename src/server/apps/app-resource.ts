/**
 * `appResource`: register the HTML of an MCP App as a `ui://` resource, with the MIME type set and
 * its `_meta.ui` (CSP, permissions, domain, border) checked and written where hosts read it.
 */
import { McpError, ErrorCode } from '../../core/error-classes.js';
import type { ResourceContents } from '../../core/types/content.js';
import type { ReadResourceResult } from '../../core/types/resources.js';
import type { McpServer } from '../mcp-server.js';
import type { RegisteredResource, ResourceConfig, ResourceReturn } from '../resource-types.js';
import type { ToolContext } from '../tool-context.js';
import { uiResourcesOf } from './apps-extension.js';
import { checkResourceMeta, checkUiUri } from './check-meta.js';
import { APP_MIME_TYPE, type AppResourceMeta } from '../../core/apps-wire.js';

/**
 * Listing metadata of a UI resource plus its MCP Apps settings (`ui`). `mimeType` is always
 * `text/html;profile=mcp-app` (set for you).
 *
 * @example
 * const config: AppResourceConfig = { description: 'Forecast view', ui: { csp: { connectDomains: ['https://api.example.com'] }, prefersBorder: true } };
 */
export type AppResourceConfig = Omit<ResourceConfig, 'mimeType'> & {
  /** `_meta.ui` of the resource: on its `resources/list` entry and on every content item it reads. */
  ui?: AppResourceMeta;
};

/**
 * What the reader returns: the HTML document as a string, or a full result whose items are HTML
 * (`text` or base64 `blob`); items without a MIME type or `_meta.ui` get the resource's.
 *
 * @example
 * const read: AppResourceReader = () => '<!doctype html><html><body>Hi</body></html>';
 */
export type AppResourceReader = (uri: string, ctx: ToolContext) => ResourceReturn | Promise<ResourceReturn>;

/**
 * Register an MCP App's HTML as resource `uri` (must start with `ui://`: anything else throws, as
 * does malformed `ui` metadata or a server without `server.extend(apps())`). `_meta.ui` goes on
 * the `resources/list` entry (hosts review it at connection time) and on each content item of
 * `resources/read` (where the spec says hosts look first).
 *
 * @example
 * appResource(server, 'Forecast view', 'ui://weather/view.html',
 *   { description: 'Interactive forecast', ui: { csp: { connectDomains: ['https://api.example.com'] } } },
 *   () => readFileSync('dist/forecast.html', 'utf8'));
 */
export function appResource(
  server: McpServer,
  name: string,
  uri: string,
  config: AppResourceConfig,
  read: AppResourceReader,
): RegisteredResource {
  const where = `appResource ${JSON.stringify(uri)}`;
  checkUiUri(uri, 'appResource');
  const known = uiResourcesOf(server, where);
  if (typeof read !== 'function') throw new TypeError(`${where}: the reader must be a function`);
  const { ui, ...rest } = (config ?? {}) as AppResourceConfig & { mimeType?: unknown };
  if (rest.mimeType !== undefined && rest.mimeType !== APP_MIME_TYPE)
    throw new TypeError(`${where}: an MCP App resource has MIME type ${APP_MIME_TYPE}`);
  const meta = ui === undefined ? undefined : checkResourceMeta(ui, where);
  const listingMeta = meta === undefined ? rest._meta : { ...rest._meta, ui: meta };
  const handle = server.resource(
    name,
    uri,
    { ...rest, mimeType: APP_MIME_TYPE, ...(listingMeta === undefined ? {} : { _meta: listingMeta }) },
    async (requested, ctx) => withAppContent(await read(requested, ctx), requested, meta),
  );
  known.add(uri);
  return handle;
}

/** The reader's answer as HTML contents with the MIME type and `_meta.ui` hosts expect. */
function withAppContent(
  result: ResourceReturn,
  uri: string,
  meta: AppResourceMeta | undefined,
): ReadResourceResult {
  const ui = meta === undefined ? undefined : { ui: meta };
  if (typeof result === 'string')
    return { contents: [{ uri, mimeType: APP_MIME_TYPE, text: result, ...(ui && { _meta: ui }) }] };
  if (typeof result !== 'object' || result === null || !Array.isArray(result.contents))
    throw new McpError(ErrorCode.InternalError, `The MCP App ${uri} returned no contents`);
  const contents = result.contents.map((item): ResourceContents => {
    const mimeType = item.mimeType ?? APP_MIME_TYPE;
    if (mimeType !== APP_MIME_TYPE)
      throw new McpError(
        ErrorCode.InternalError,
        `The MCP App ${uri} returned ${mimeType}, not ${APP_MIME_TYPE}`,
      );
    const itemMeta = ui !== undefined && item._meta?.ui === undefined ? { ...item._meta, ...ui } : item._meta;
    return { ...item, mimeType, ...(itemMeta && { _meta: itemMeta }) };
  });
  return { ...result, contents };
}
