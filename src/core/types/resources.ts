/**
 * Resources: list, templates, read, subscribe.
 */
import type { Annotations, Icon, Meta, PaginatedResult } from './common.js';
import type { ResourceContents } from './content.js';

/**
 * A concrete resource as listed by `resources/list`.
 *
 * @example
 * const r: Resource = { uri: 'test://static-text', name: 'static-text', mimeType: 'text/plain' };
 */
export type Resource = {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  annotations?: Annotations;
  size?: number;
  icons?: Icon[];
  _meta?: Meta;
};

/**
 * A parameterised resource (RFC 6570 URI template).
 *
 * @example
 * const t: ResourceTemplate = { uriTemplate: 'test://template/{id}/data', name: 'data' };
 */
export type ResourceTemplate = {
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  annotations?: Annotations;
  icons?: Icon[];
  _meta?: Meta;
};

/**
 * `resources/list` result.
 *
 * @example
 * const { resources, nextCursor }: ListResourcesResult = await client.listResources();
 */
export type ListResourcesResult = PaginatedResult & { resources: Resource[] };
/**
 * `resources/templates/list` result.
 *
 * @example
 * const { resourceTemplates }: ListResourceTemplatesResult = await client.listResourceTemplates();
 */
export type ListResourceTemplatesResult = PaginatedResult & { resourceTemplates: ResourceTemplate[] };

/**
 * `resources/read`, `resources/subscribe`, `resources/unsubscribe` params.
 *
 * @example
 * const params: ResourceRequestParams = { uri: 'file:///project/README.md' };
 */
export type ResourceRequestParams = { uri: string; _meta?: Meta };

/**
 * @example
 * const r: ReadResourceResult = { contents: [{ uri: 'test://a', text: 'A' }] };
 */
export type ReadResourceResult = { contents: ResourceContents[]; _meta?: Meta };

/**
 * `notifications/resources/updated` params.
 *
 * @example
 * client.on('resourceUpdated', ({ uri }: ResourceUpdatedParams) => void client.readResource(uri));
 */
export type ResourceUpdatedParams = { uri: string; _meta?: Meta };
