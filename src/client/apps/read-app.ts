/**
 * Listing and reading UI resources: the HTML of an MCP App with the metadata a host needs to
 * sandbox it (CSP, permissions, domain, border).
 */
import { APP_MIME_TYPE, type AppResourceMeta } from '../../core/apps-wire.js';
import { KeelError } from '../../core/error-classes.js';
import type { Resource } from '../../core/types/resources.js';
import type { CallOptions } from '../call-options.js';
import type { McpClient } from '../mcp-client.js';
import type { PaginateOptions } from '../pagination.js';

/**
 * An MCP App as read from its server.
 *
 * @example
 * const app: AppDocument = { uri: 'ui://weather/view.html', html: '<!doctype html>…', ui: { prefersBorder: true } };
 */
export interface AppDocument {
  readonly uri: string;
  /** The HTML document (decoded from `blob` when the server sent base64). */
  readonly html: string;
  /** `_meta.ui` of the content item, else of the `resources/list` entry, else `{}`. */
  readonly ui: AppResourceMeta;
}

/**
 * The server's UI resources: the listed resources with a `ui://` URI.
 *
 * @example
 * for (const resource of await listAppResources(client)) console.log(resource.uri, resource.name);
 */
export async function listAppResources(client: McpClient, options?: PaginateOptions): Promise<Resource[]> {
  const resources = await client.listAllResources(options);
  return resources.filter((resource) => resource.uri.startsWith('ui://'));
}

/**
 * Read the MCP App at `uri` (a `ui://` URI): its HTML and its `_meta.ui`, taken from the content
 * item and, when the item has none, from the `resources/list` entry (`listing`, or looked up), as
 * the spec tells hosts. Content of another MIME type, or none, throws a KeelError.
 *
 * @example
 * const ui = toolUi(tool);
 * if (ui?.resourceUri) {
 *   const app = await readApp(client, ui.resourceUri);
 *   iframe.srcdoc = app.html; // with a CSP built from app.ui.csp
 * }
 */
export async function readApp(
  client: McpClient,
  uri: string,
  options: CallOptions & { listing?: Resource } = {},
): Promise<AppDocument> {
  if (typeof uri !== 'string' || !uri.startsWith('ui://'))
    throw new TypeError(`readApp: an MCP App URI starts with "ui://", got ${JSON.stringify(uri)}`);
  const { listing, ...callOptions } = options;
  const result = await client.readResource(uri, callOptions);
  const item = result.contents.find((content) => content.uri === uri) ?? result.contents[0];
  if (item === undefined) throw new KeelError(`The server returned no content for ${uri}`);
  if (item.mimeType !== APP_MIME_TYPE)
    throw new KeelError(`${uri} is ${String(item.mimeType ?? 'untyped')}, not an MCP App (${APP_MIME_TYPE})`);
  const html = 'text' in item ? item.text : decodeBase64(item.blob);
  const own = uiOf(item._meta);
  if (own !== undefined) return { uri, html, ui: own };
  const entry =
    listing ??
    (await client.listAllResources({ signal: callOptions.signal, timeoutMs: callOptions.timeoutMs })).find(
      (r) => r.uri === uri,
    );
  return { uri, html, ui: uiOf(entry?._meta) ?? {} };
}

function uiOf(meta: { [key: string]: unknown } | undefined): AppResourceMeta | undefined {
  const ui = meta?.ui;
  return typeof ui === 'object' && ui !== null && !Array.isArray(ui) ? ui : undefined;
}

/** UTF-8 text of base64 `data`, with the web APIs every runtime Keel supports has. */
function decodeBase64(data: string): string {
  const binary = atob(data);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return new TextDecoder().decode(bytes);
}
