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

export type ListResourcesResult = PaginatedResult & { resources: Resource[] };
export type ListResourceTemplatesResult = PaginatedResult & { resourceTemplates: ResourceTemplate[] };

/** `resources/read`, `resources/subscribe`, `resources/unsubscribe` params. */
export type ResourceRequestParams = { uri: string; _meta?: Meta };

/**
 * @example
 * const r: ReadResourceResult = { contents: [{ uri: 'test://a', text: 'A' }] };
 */
export type ReadResourceResult = { contents: ResourceContents[]; _meta?: Meta };

/** `notifications/resources/updated` params. */
export type ResourceUpdatedParams = { uri: string; _meta?: Meta };
