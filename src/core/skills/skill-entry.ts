/**
 * The wire shapes of the skills extension (SEP-2640, `io.modelcontextprotocol/skills`), shared by
 * the server that publishes skills and the client that verifies them: the skill entry of
 * `skills/list` / `skills/get`, its file manifest, the digest form and the naming rules.
 */
import type { JsonObject } from '../jsonrpc.js';

/**
 * The extension identifier SEP-2640 defines.
 *
 * @example
 * if (client.serverExtension(SKILLS_EXTENSION)) console.log('the server publishes skills');
 */
export const SKILLS_EXTENSION = 'io.modelcontextprotocol/skills';
/** `_meta` keys of skill resources use this prefix (SEP-2640). */
export const SKILLS_META_PREFIX = 'io.modelcontextprotocol.skills/';
/** The MIME type of a `SKILL.md` resource. */
export const SKILL_MD_MIME_TYPE = 'text/markdown';
/** The MIME type of a directory resource (`resources/directory/read`). */
export const DIRECTORY_MIME_TYPE = 'inode/directory';

/**
 * One file of a skill as its entry lists it: its resource URI, the SHA-256 of its raw bytes
 * (`sha256:` + 64 lowercase hex) and their length.
 *
 * @example
 * const file: SkillFile = { uri: 'skill://pdf/SKILL.md', digest: 'sha256:9f86…', size: 120 };
 */
export interface SkillFile {
  /** The file's resource URI (the SKILL.md itself, or a file within the skill directory). */
  uri: string;
  /** `sha256:` and 64 lowercase hex characters, over the raw bytes. */
  digest: string;
  /** Length of the raw bytes. */
  size: number;
}

/**
 * A skill as `skills/list` and `skills/get` describe it: the URI of its `SKILL.md`, that file's
 * YAML frontmatter as a JSON object (verbatim), and either every file of the skill (SKILL.md
 * included) with digest and size, or `"dynamic"` when the server publishes no manifest.
 *
 * @example
 * const entry: SkillEntry = {
 *   uri: 'skill://pdf-processing/SKILL.md',
 *   frontmatter: { name: 'pdf-processing', description: 'Work with PDFs' },
 *   resources: [{ uri: 'skill://pdf-processing/SKILL.md', digest: 'sha256:…', size: 96 }],
 * };
 */
export interface SkillEntry {
  /** `skill://<skill-path>/SKILL.md`. */
  uri: string;
  /** The SKILL.md frontmatter, verbatim (at least `name` and `description`). */
  frontmatter: JsonObject;
  /** Every file of the skill, or `"dynamic"`: no manifest published. */
  resources: SkillFile[] | 'dynamic';
}

// Agent Skills naming rules: 1-64 characters, lowercase letters, digits and hyphens, no hyphen at
// either end, no two in a row.
const SKILL_NAME = /^(?!.*--)[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?$/;

/**
 * True when `name` follows the Agent Skills naming rules (1-64 characters of `a-z`, `0-9` and
 * `-`, no leading, trailing or doubled hyphen).
 *
 * @example
 * isSkillName('pdf-processing'); // true
 * isSkillName('PDF--tools'); // false
 */
export function isSkillName(name: unknown): name is string {
  return typeof name === 'string' && SKILL_NAME.test(name);
}

/**
 * The skill name a `SKILL.md` URI carries (its final skill-path segment), or undefined when the
 * URI does not end in `/<name>/SKILL.md`.
 *
 * @example
 * skillNameOf('skill://acme/pdf-processing/SKILL.md'); // 'pdf-processing'
 */
export function skillNameOf(uri: string): string | undefined {
  const scheme = uri.indexOf('://');
  if (scheme < 0) return undefined;
  const segments = uri.slice(scheme + 3).split('/');
  if (segments.length < 2 || segments[segments.length - 1] !== 'SKILL.md') return undefined;
  return segments[segments.length - 2] || undefined;
}

/**
 * `sha256:` and the lowercase hex SHA-256 of `bytes` (SEP-2640's digest form), with WebCrypto so it
 * runs on every runtime.
 *
 * @example
 * await skillDigest(new TextEncoder().encode('hi')); // 'sha256:8f434346…'
 */
export async function skillDigest(bytes: Uint8Array): Promise<string> {
  const hash = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>));
  let hex = '';
  for (const byte of hash) hex += byte.toString(16).padStart(2, '0');
  return `sha256:${hex}`;
}

/**
 * Deep equality of two JSON values (key order ignored): how a fetched frontmatter is compared
 * with the entry's, field by field.
 *
 * @example
 * sameJson({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] }); // true
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    return a.length === other.length && a.every((item, i) => sameJson(item, other[i]));
  }
  const left = a as { [key: string]: unknown };
  const right = b as { [key: string]: unknown };
  const keys = Object.keys(left);
  if (keys.length !== Object.keys(right).length) return false;
  return keys.every(
    (key) => Object.prototype.hasOwnProperty.call(right, key) && sameJson(left[key], right[key]),
  );
}
