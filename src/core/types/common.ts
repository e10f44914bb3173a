/**
 * Shared MCP building blocks (2025-11-25 schema): `_meta`, icons, display metadata, annotations,
 * pagination. Wire types are `type` aliases (not interfaces) so they stay assignable to the
 * engine's `JsonObject`.
 */

/**
 * `_meta`: reserved on requests, results, notifications and most objects.
 *
 * @example
 * const meta: Meta = { 'example.com/trace-id': 'abc123' };
 */
export type Meta = { [key: string]: unknown };

/**
 * A progress token: unique among the sender's active requests.
 *
 * @example
 * const token: ProgressToken = 'import-42';
 */
export type ProgressToken = string | number;

/**
 * An opaque pagination cursor.
 *
 * @example
 * const next: Cursor | undefined = (await client.listTools()).nextCursor;
 */
export type Cursor = string;

/**
 * An icon a client may show for a server, tool, resource, template or prompt.
 *
 * @example
 * const icon: Icon = { src: 'https://example.com/tool.png', mimeType: 'image/png', sizes: ['48x48'] };
 */
export type Icon = {
  /** `https:` or `data:` URI. */
  src: string;
  mimeType?: string;
  /** `"48x48"`, `"any"` (for SVG), ... */
  sizes?: string[];
  theme?: 'light' | 'dark';
};

/**
 * Who a piece of content is for.
 *
 * @example
 * const role: Role = 'assistant';
 */
export type Role = 'user' | 'assistant';

/**
 * Hints about how a client should use or show an object.
 *
 * @example
 * const a: Annotations = { audience: ['user'], priority: 0.8, lastModified: '2025-01-12T15:00:58Z' };
 */
export type Annotations = {
  audience?: Role[];
  /** 0 (least important) … 1 (most important). */
  priority?: number;
  /** ISO 8601 timestamp. */
  lastModified?: string;
};

/**
 * `serverInfo` / `clientInfo`.
 *
 * @example
 * const info: Implementation = { name: 'weather', version: '1.0.0', title: 'Weather' };
 */
export type Implementation = {
  name: string;
  version: string;
  title?: string;
  description?: string;
  websiteUrl?: string;
  icons?: Icon[];
};

/**
 * Params of a paginated list request.
 *
 * @example
 * const params: PaginatedParams = { cursor: page.nextCursor };
 * await client.listTools(params);
 */
export type PaginatedParams = { cursor?: Cursor | undefined; _meta?: Meta };

/**
 * A page of a list result; `nextCursor` absent on the last page.
 *
 * @example
 * const page: PaginatedResult = await client.listPrompts();
 * if (page.nextCursor === undefined) console.log('last page');
 */
export type PaginatedResult = { nextCursor?: Cursor; _meta?: Meta };
