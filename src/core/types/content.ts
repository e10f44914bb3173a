/**
 * Content blocks (tool results, prompt messages, sampling) and resource contents.
 */
import type { Annotations, Icon, Meta } from './common.js';

/** @example const t: TextContent = { type: 'text', text: 'hello' }; */
export type TextContent = { type: 'text'; text: string; annotations?: Annotations; _meta?: Meta };

/** @example const i: ImageContent = { type: 'image', data: base64Png, mimeType: 'image/png' }; */
export type ImageContent = {
  type: 'image';
  /** Base64. */
  data: string;
  mimeType: string;
  annotations?: Annotations;
  _meta?: Meta;
};

/** @example const a: AudioContent = { type: 'audio', data: base64Wav, mimeType: 'audio/wav' }; */
export type AudioContent = {
  type: 'audio';
  data: string;
  mimeType: string;
  annotations?: Annotations;
  _meta?: Meta;
};

/** @example const c: TextResourceContents = { uri: 'test://a', mimeType: 'text/plain', text: 'A' }; */
export type TextResourceContents = { uri: string; mimeType?: string; text: string; _meta?: Meta };

/** @example const c: BlobResourceContents = { uri: 'test://b', mimeType: 'image/png', blob: base64 }; */
export type BlobResourceContents = { uri: string; mimeType?: string; blob: string; _meta?: Meta };

/**
 * One item of `resources/read` `contents`.
 *
 * @example
 * const item: ResourceContents = { uri: 'file:///notes.txt', mimeType: 'text/plain', text: 'hi' };
 */
export type ResourceContents = TextResourceContents | BlobResourceContents;

/**
 * @example
 * const r: EmbeddedResource = { type: 'resource', resource: { uri: 'test://x', text: 'x' } };
 */
export type EmbeddedResource = {
  type: 'resource';
  resource: ResourceContents;
  annotations?: Annotations;
  _meta?: Meta;
};

/**
 * A link to a resource (not its contents).
 *
 * @example
 * const l: ResourceLink = { type: 'resource_link', uri: 'file:///a.txt', name: 'a.txt' };
 */
export type ResourceLink = {
  type: 'resource_link';
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  icons?: Icon[];
  annotations?: Annotations;
  _meta?: Meta;
};

/**
 * What tool results and prompt messages carry.
 *
 * @example
 * const blocks: ContentBlock[] = [
 *   { type: 'text', text: 'See the attached file' },
 *   { type: 'resource_link', uri: 'file:///report.pdf', name: 'report.pdf', mimeType: 'application/pdf' },
 * ];
 */
export type ContentBlock = TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource;
