/**
 * A skill to publish (SEP-2640), checked when it is defined: a bad skill throws at start-up with
 * a message that says what to fix, never a listing a client cannot verify.
 */
import type { JsonObject } from '../../core/jsonrpc.js';
import { parseFrontmatter } from '../../core/skills/frontmatter.js';
import { isSkillName } from '../../core/skills/skill-entry.js';

/**
 * A skill in code: its files by path relative to the skill directory (`SKILL.md` required, with
 * YAML frontmatter giving at least `name` and `description`), and optionally the skill path that
 * places it in the `skill://` namespace (default: the frontmatter `name`). The final segment of
 * `path` must equal the name.
 *
 * @example
 * const pdf: SkillSource = {
 *   path: 'acme/pdf-processing',
 *   files: {
 *     'SKILL.md': '---\nname: pdf-processing\ndescription: Fill PDF forms\n---\nSee references/FORMS.md',
 *     'references/FORMS.md': '# Forms',
 *   },
 * };
 */
export interface SkillSource {
  /** `skill://<path>/SKILL.md`: segments separated by `/`, the last one the skill's name. */
  path?: string;
  /** File contents by relative path (`/`-separated); text is sent as UTF-8. */
  files: { readonly [path: string]: string | Uint8Array };
}

/** @internal A skill after its checks: what the extension serves. */
export interface CheckedSkill {
  path: string;
  name: string;
  frontmatter: JsonObject;
  /** Relative path → raw bytes (SKILL.md first). */
  files: Map<string, Uint8Array>;
}

/** SEP-2640 limits a server SHOULD NOT exceed per skill. */
export const MAX_SKILL_FILES = 512;
export const MAX_SKILL_BYTES = 16 * 1024 * 1024;

// An RFC 3986 path segment without percent-encoding (which would make one file two URIs).
const SEGMENT = /^[A-Za-z0-9._~!$&'()*+,;=:@-]+$/;

/** @internal Check `source` and return what is served; throws an Error saying what is wrong. */
export function checkSkill(source: SkillSource): CheckedSkill {
  if (
    typeof source !== 'object' ||
    source === null ||
    typeof source.files !== 'object' ||
    source.files === null
  )
    throw new TypeError('skills: a skill is { path?, files: { "SKILL.md": ..., ... } }');
  const raw = source.files['SKILL.md'];
  const where = source.path === undefined ? 'a skill' : `skill "${source.path}"`;
  if (raw === undefined) throw new Error(`skills: ${where} has no SKILL.md at its root`);
  const text = typeof raw === 'string' ? raw : new TextDecoder('utf-8', { fatal: true }).decode(raw);
  let parsed;
  try {
    parsed = parseFrontmatter(text);
  } catch (error) {
    throw new Error(`skills: ${where}: SKILL.md ${(error as Error).message}`, { cause: error });
  }
  if (!parsed) throw new Error(`skills: ${where}: SKILL.md must begin with a "---" YAML frontmatter block`);
  const { frontmatter } = parsed;
  const name = frontmatter.name;
  if (!isSkillName(name))
    throw new Error(
      `skills: ${where}: frontmatter name ${JSON.stringify(name)} breaks the Agent Skills naming rules (1-64 of a-z, 0-9 and "-", no leading, trailing or doubled "-")`,
    );
  if (typeof frontmatter.description !== 'string' || frontmatter.description.trim() === '')
    throw new Error(`skills: skill "${name}": frontmatter needs a non-empty description`);
  if (frontmatter.description.length > 1024)
    throw new Error(`skills: skill "${name}": the description is longer than 1024 characters`);
  const path = source.path ?? name;
  const segments = path.split('/');
  if (segments.some((segment) => !SEGMENT.test(segment) || segment === '.' || segment === '..'))
    throw new Error(`skills: skill "${name}": path ${JSON.stringify(path)} has an empty or invalid segment`);
  if (segments[segments.length - 1] !== name)
    throw new Error(
      `skills: skill path "${path}" must end with the frontmatter name "${name}" (SEP-2640: the final segment is the name)`,
    );
  const files = new Map<string, Uint8Array>();
  let total = 0;
  const encoder = new TextEncoder();
  for (const relative of [
    'SKILL.md',
    ...Object.keys(source.files)
      .filter((key) => key !== 'SKILL.md')
      .sort(),
  ]) {
    const parts = relative.split('/');
    if (parts.some((part) => !SEGMENT.test(part) || part === '.' || part === '..'))
      throw new Error(
        `skills: skill "${name}": file path ${JSON.stringify(relative)} is not a plain relative path`,
      );
    if (relative !== 'SKILL.md' && parts[parts.length - 1] === 'SKILL.md')
      throw new Error(
        `skills: skill "${name}": ${relative}: skills do not nest (a SKILL.md below the skill root)`,
      );
    const content = source.files[relative]!;
    if (typeof content !== 'string' && !(content instanceof Uint8Array))
      throw new TypeError(`skills: skill "${name}": ${relative} must be a string or a Uint8Array`);
    const bytes = typeof content === 'string' ? encoder.encode(content) : content;
    total += bytes.byteLength;
    files.set(relative, bytes);
  }
  if (files.size > MAX_SKILL_FILES)
    throw new Error(
      `skills: skill "${name}" has ${files.size} files; SEP-2640 limits a skill to ${MAX_SKILL_FILES}`,
    );
  if (total > MAX_SKILL_BYTES)
    throw new Error(`skills: skill "${name}" holds ${total} bytes; SEP-2640 limits a skill to 16 MiB`);
  return { path, name, frontmatter, files };
}
