/**
 * The typed surface of `McpServer.resource()` and `resourceTemplate()`.
 */
import type { ReadResourceResult, Resource } from '../core/types/resources.js';
import type { RegisteredHandle } from './registry.js';
import type { ToolContext } from './tool-context.js';
import type { TemplateVariables } from './uri-template.js';
import type { Visibility } from './views/visibility.js';

/**
 * Listing metadata of a resource or template.
 *
 * @example
 * const meta: ResourceConfig = { description: 'A static text', mimeType: 'text/plain' };
 */
export type ResourceConfig = Omit<Resource, 'uri' | 'name'> & {
  /**
   * OAuth scopes a caller's token needs to read it (HTTP with `auth` only): without them
   * `resources/read` gets 403 `insufficient_scope` (step-up). Never sent in listings.
   */
  scopes?: readonly string[];
  /**
   * Who may see it (per-caller views): by scope, subject or OAuth client, or a predicate on the
   * caller. To anyone else it does not exist: absent from the lists, "resource not found" on read,
   * no updates, nothing to complete. Unlike `scopes` (listed, 403 for step-up).
   */
  visibleTo?: Visibility;
};

/**
 * A reader returns a full result, or a string (one text item with the resource's `mimeType`).
 *
 * @example
 * const asText: ResourceReturn = 'hello';
 * const asBlob: ResourceReturn = { contents: [{ uri: 'file:///logo.png', mimeType: 'image/png', blob: base64 }] };
 */
export type ResourceReturn = ReadResourceResult | string;

/** @example const read: ResourceReader = (uri) => `contents of ${uri}`; */
export type ResourceReader = (uri: string, ctx: ToolContext) => ResourceReturn | Promise<ResourceReturn>;

/** @example const read: TemplateReader = (uri, { id }) => JSON.stringify({ id }); */
export type TemplateReader = (
  uri: string,
  variables: TemplateVariables,
  ctx: ToolContext,
) => ResourceReturn | Promise<ResourceReturn>;

/**
 * Completes a value being typed: `value` is the partial input, `context.arguments` the other
 * values already chosen. Returns candidates (at most 100 are sent).
 *
 * @example
 * const complete: Completer = (value) => ['alpha', 'beta'].filter((v) => v.startsWith(value));
 */
export type Completer = (
  value: string,
  context: { arguments: { [name: string]: string } },
) => string[] | Promise<string[]>;

/**
 * @example
 * server.resourceTemplate('data', 'test://template/{id}/data', { mimeType: 'application/json' }, read, {
 *   complete: { id: (v) => ['1', '2'].filter((x) => x.startsWith(v)) },
 *   list: () => [{ uri: 'test://template/1/data', name: 'one' }],
 * });
 */
export interface TemplateOptions {
  /** Completers per template variable (`completion/complete` with `ref/resource`). */
  complete?: { [variable: string]: Completer };
  /** Concrete resources of this template to include in `resources/list`. */
  list?: (ctx: ToolContext) => Resource[] | Promise<Resource[]>;
}

/**
 * What `RegisteredResource.update()` may change (the URI is fixed).
 *
 * @example
 * readme.update({ description: 'Updated docs', read: () => '# Hello again' });
 */
export type ResourceUpdate = { [K in keyof ResourceConfig]?: ResourceConfig[K] | undefined } & {
  read?: ResourceReader | undefined;
};
/**
 * What `RegisteredTemplate.update()` may change (the URI template is fixed).
 *
 * @example
 * users.update({ mimeType: 'application/json', read: (_uri, { id }) => JSON.stringify({ id, v: 2 }) });
 */
export type TemplateUpdate = { [K in keyof ResourceConfig]?: ResourceConfig[K] | undefined } & {
  read?: TemplateReader | undefined;
};

/**
 * Handle of a static resource; its `name` is the resource URI.
 *
 * @example
 * const readme = server.resource('readme', 'file:///readme.md', {}, () => '# Hello');
 * readme.disable(); // clients get notifications/resources/list_changed
 */
export type RegisteredResource = RegisteredHandle<ResourceUpdate>;
/**
 * Handle of a resource template.
 *
 * @example
 * const users = server.resourceTemplate('user', 'users://{id}', {}, (_uri, { id }) => `user ${String(id)}`);
 * users.remove();
 */
export type RegisteredTemplate = RegisteredHandle<TemplateUpdate>;
