/**
 * The wire form of MCP Apps (`io.modelcontextprotocol/ui`, SEP-1865), shared by the server helpers
 * (src/server/apps/) and the client side (src/client/apps/): the
 * extension identifier, the MIME type of UI resources, and the `_meta.ui` shapes of tools and UI
 * resources. Checked against `@modelcontextprotocol/ext-apps` 2.0 (test/apps/ext-apps-types.test.ts).
 */

/**
 * The MCP Apps extension identifier, declared under `capabilities.extensions`.
 *
 * @example
 * ctx.clientExtension(APPS_EXTENSION_ID); // the client's settings, or undefined
 */
export const APPS_EXTENSION_ID = 'io.modelcontextprotocol/ui';

/**
 * The MIME type of an MCP App's HTML (`resources/list` entry and `resources/read` content).
 *
 * @example
 * const isApp = resource.mimeType === APP_MIME_TYPE;
 */
export const APP_MIME_TYPE = 'text/html;profile=mcp-app';

/**
 * The deprecated flat tool `_meta` key that older hosts read instead of `_meta.ui.resourceUri`
 * (the spec says hosts must check both until it is removed before GA). Keel writes both, as
 * ext-apps' own `registerAppTool` does.
 *
 * @example
 * tool._meta?.[LEGACY_RESOURCE_URI_KEY]; // 'ui://weather/view.html'
 */
export const LEGACY_RESOURCE_URI_KEY = 'ui/resourceUri';

/**
 * Who may call a tool: `model` (the agent sees and calls it) and/or `app` (the UI of this server
 * calls it through the host). The spec's default is both.
 *
 * @example
 * const appOnly: AppVisibility[] = ['app'];
 */
export type AppVisibility = 'model' | 'app';

/**
 * The origins a UI needs, which the host turns into its Content Security Policy. Each entry is an
 * origin such as `https://api.example.com`, `wss://live.example.com` or `https://*.example.com`.
 * Omitted or empty: none (the host's restrictive default).
 *
 * @example
 * const csp: AppCsp = { connectDomains: ['https://api.example.com'], resourceDomains: ['https://cdn.example.com'] };
 */
export interface AppCsp {
  /** `connect-src`: fetch, XHR, WebSocket. */
  connectDomains?: string[];
  /** `img-src`, `script-src`, `style-src`, `font-src`, `media-src`. */
  resourceDomains?: string[];
  /** `frame-src`: nested iframes. */
  frameDomains?: string[];
  /** `base-uri`. */
  baseUriDomains?: string[];
}

/**
 * Browser permissions a UI asks for (the host may grant them through the iframe's `allow`). Each
 * is requested with an empty object.
 *
 * @example
 * const permissions: AppPermissions = { clipboardWrite: {} };
 */
export interface AppPermissions {
  camera?: Record<string, never>;
  microphone?: Record<string, never>;
  geolocation?: Record<string, never>;
  clipboardWrite?: Record<string, never>;
}

/**
 * `_meta.ui` of a UI resource: security and rendering settings for the host.
 *
 * @example
 * const meta: AppResourceMeta = { csp: { connectDomains: ['https://api.example.com'] }, prefersBorder: true };
 */
export interface AppResourceMeta {
  csp?: AppCsp;
  permissions?: AppPermissions;
  /** A dedicated sandbox origin; its format is host-specific. */
  domain?: string;
  /** true: the host draws a border and background; false: it does not; omitted: host's choice. */
  prefersBorder?: boolean;
}

/**
 * `_meta.ui` of a tool: the UI that renders its results and who may call it.
 *
 * @example
 * const meta: AppToolMeta = { resourceUri: 'ui://weather/view.html', visibility: ['model', 'app'] };
 */
export interface AppToolMeta {
  resourceUri?: string;
  visibility?: AppVisibility[];
}
