/**
 * The MIME type a skill file is served with, from its extension: the few kinds skills carry
 * (instructions, references, scripts, templates, images); anything else is octet-stream.
 */
const TYPES: { [extension: string]: string } = {
  md: 'text/markdown',
  txt: 'text/plain',
  html: 'text/html',
  css: 'text/css',
  csv: 'text/csv',
  py: 'text/x-python',
  sh: 'text/x-shellscript',
  js: 'text/javascript',
  mjs: 'text/javascript',
  ts: 'text/x-typescript',
  json: 'application/json',
  yaml: 'application/yaml',
  yml: 'application/yaml',
  xml: 'application/xml',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  svg: 'image/svg+xml',
  pdf: 'application/pdf',
};

/** @internal The MIME type for `path` (by extension). */
export function mimeTypeOf(path: string): string {
  const dot = path.lastIndexOf('.');
  return (dot >= 0 && TYPES[path.slice(dot + 1).toLowerCase()]) || 'application/octet-stream';
}
