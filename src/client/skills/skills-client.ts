/**
 * The client side of the skills extension (SEP-2640): list the skills a server publishes, and
 * fetch one only when it is loaded (never ahead of need), verifying every file against its entry
 * (byte length, SHA-256 digest, and for `SKILL.md` the frontmatter, field by field) before handing
 * it on. Tampered content is refused with a {@link SkillVerificationError}; it never reaches the
 * caller.
 */
import { SkillVerificationError } from '../../core/errors.js';
import { fromBase64 } from '../../core/base64.js';
import { isJsonObject, type JsonObject } from '../../core/jsonrpc.js';
import { parseFrontmatter } from '../../core/skills/frontmatter.js';
import {
  SKILLS_EXTENSION,
  sameJson,
  skillDigest,
  skillNameOf,
  type SkillEntry,
  type SkillFile,
} from '../../core/skills/skill-entry.js';
import type { CallOptions } from '../call-options.js';
import { ProtocolViolationError } from '../errors.js';
import type { McpClient } from '../mcp-client.js';

/**
 * A skill's `SKILL.md`, fetched and verified: the entry it was checked against, its frontmatter
 * and the Markdown body after it.
 *
 * @example
 * const skill: LoadedSkill = await skills.load(entry);
 * prompt += skill.body;
 */
export interface LoadedSkill {
  /** The entry the file was verified against. */
  entry: SkillEntry;
  /** The skill's name (frontmatter `name`, equal to the URI's final skill-path segment). */
  name: string;
  /** The parsed frontmatter (equal to the entry's). */
  frontmatter: JsonObject;
  /** The instructions after the frontmatter. */
  body: string;
  /** The whole file. */
  text: string;
}

/**
 * One verified file of a skill: its raw bytes, and its text when the server sent text.
 *
 * @example
 * const file: SkillFileContent = await skills.readFile(entry, 'skill://pdf/references/FORMS.md');
 * console.log(file.text ?? `${file.bytes.byteLength} bytes`);
 */
export interface SkillFileContent {
  /** The file's resource URI. */
  uri: string;
  /** As the server sent it. */
  mimeType?: string;
  /** The verified raw bytes. */
  bytes: Uint8Array;
  /** The text, when the server sent text (not a blob). */
  text?: string;
}

// A server that keeps sending cursors is cut off rather than followed forever.
const MAX_PAGES = 1000;

/**
 * Skills of the server `client` is connected to. Nothing is fetched until asked: {@link list}
 * gives the entries, {@link load} fetches and verifies one `SKILL.md`, {@link readFile} one
 * supporting file when the skill needs it.
 *
 * @example
 * const skills = new SkillsClient(client);
 * if (skills.supported) {
 *   const [entry] = await skills.list();
 *   const skill = await skills.load(entry); // throws SkillVerificationError on tampered content
 *   console.log(skill.frontmatter.description, skill.body);
 * }
 */
export class SkillsClient {
  constructor(private readonly client: McpClient) {}

  /** Whether the server declared the skills extension. */
  get supported(): boolean {
    return this.client.serverExtension(SKILLS_EXTENSION) !== undefined;
  }

  /** The server's skills extension settings (`{ directoryRead: true }`, ...), or undefined. */
  get settings(): JsonObject | undefined {
    return this.client.serverExtension(SKILLS_EXTENSION);
  }

  /**
   * Every skill entry (`skills/list`, all pages). An empty list does not prove the server has no
   * skills (SEP-2640): it may serve skills it cannot enumerate; load those by URI.
   *
   * @example
   * for (const entry of await skills.list()) console.log(entry.uri, entry.frontmatter.description);
   */
  async list(options?: CallOptions): Promise<SkillEntry[]> {
    const entries: SkillEntry[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const result = await this.client.lowLevel.request(
        'skills/list',
        cursor === undefined ? {} : { cursor },
        options,
      );
      if (!Array.isArray(result.skills))
        throw new ProtocolViolationError('skills/list: the result has no skills array');
      for (const item of result.skills) entries.push(checkEntry(item, 'skills/list'));
      const next = result.nextCursor;
      if (typeof next !== 'string' || next === '') return entries;
      if (seen.has(next)) throw new ProtocolViolationError('skills/list: the server repeated a cursor');
      seen.add(next);
      cursor = next;
    }
    throw new ProtocolViolationError(`skills/list: more than ${MAX_PAGES} pages`);
  }

  /**
   * The entry of one skill by the URI of its `SKILL.md` (`skills/get`); an unknown URI rejects with
   * the server's `-32602`.
   *
   * @example
   * const entry = await skills.get('skill://acme/billing/refunds/SKILL.md');
   */
  async get(uri: string, options?: CallOptions): Promise<SkillEntry> {
    const result = await this.client.lowLevel.request('skills/get', { uri }, options);
    const entry = checkEntry(result.skill, 'skills/get');
    if (entry.uri !== uri) throw new ProtocolViolationError(`skills/get: asked for ${uri}, got ${entry.uri}`);
    return entry;
  }

  /**
   * Fetch a skill's `SKILL.md` and verify it: size and digest against the entry's manifest (when
   * the entry has one), then its frontmatter against the entry's, field by field, and its name
   * against the URI. Given a URI, the entry is asked for first (`skills/get`).
   *
   * @example
   * try {
   *   const skill = await skills.load('skill://pdf-processing/SKILL.md');
   * } catch (error) {
   *   if (error instanceof SkillVerificationError) console.warn(`refused ${error.uri}: ${error.check}`);
   * }
   */
  async load(skill: SkillEntry | string, options?: CallOptions): Promise<LoadedSkill> {
    const entry = typeof skill === 'string' ? await this.get(skill, options) : checkEntry(skill, 'load');
    const file = await this.readFile(entry, entry.uri, options);
    const text = file.text ?? new TextDecoder().decode(file.bytes);
    let parsed;
    try {
      parsed = parseFrontmatter(text);
    } catch {
      parsed = undefined;
    }
    if (!parsed)
      throw new SkillVerificationError(entry.uri, 'frontmatter', entry.frontmatter, undefined, [
        '(unparseable)',
      ]);
    const keys = new Set([...Object.keys(parsed.frontmatter), ...Object.keys(entry.frontmatter)]);
    const differing = [...keys].filter((key) => !sameJson(parsed.frontmatter[key], entry.frontmatter[key]));
    if (differing.length > 0)
      throw new SkillVerificationError(
        entry.uri,
        'frontmatter',
        entry.frontmatter,
        parsed.frontmatter,
        differing,
      );
    const name = parsed.frontmatter.name;
    if (typeof name !== 'string' || skillNameOf(entry.uri) !== name)
      throw new SkillVerificationError(entry.uri, 'frontmatter', skillNameOf(entry.uri), name, ['name']);
    return { entry, name, frontmatter: parsed.frontmatter, body: parsed.body, text };
  }

  /**
   * Fetch one file of a skill (`resources/read`) and verify its size and digest against the
   * entry's manifest. A URI the manifest does not list is refused before anything is fetched.
   * With a `"dynamic"` entry there is no manifest and the file comes back as sent.
   *
   * @example
   * const forms = await skills.readFile(entry, 'skill://pdf-processing/references/FORMS.md');
   */
  async readFile(entry: SkillEntry, uri: string, options?: CallOptions): Promise<SkillFileContent> {
    let listed: SkillFile | undefined;
    if (entry.resources !== 'dynamic') {
      listed = entry.resources.find((file) => file.uri === uri);
      if (!listed) throw new ProtocolViolationError(`${uri} is not a file of skill ${entry.uri}`);
    }
    const result = await this.client.readResource(uri, options);
    const content = (result.contents as JsonObject[]).find((item) => item.uri === uri) ?? result.contents[0];
    if (!content) throw new ProtocolViolationError(`resources/read ${uri}: no contents`);
    const file = bytesOf(content, uri);
    if (listed) {
      if (file.bytes.byteLength !== listed.size)
        throw new SkillVerificationError(uri, 'size', listed.size, file.bytes.byteLength);
      const digest = await skillDigest(file.bytes);
      if (digest !== listed.digest) throw new SkillVerificationError(uri, 'digest', listed.digest, digest);
    }
    return file;
  }
}

function bytesOf(content: JsonObject, uri: string): SkillFileContent {
  const mimeType = typeof content.mimeType === 'string' ? content.mimeType : undefined;
  const base = mimeType === undefined ? { uri } : { uri, mimeType };
  if (typeof content.text === 'string')
    return { ...base, bytes: new TextEncoder().encode(content.text), text: content.text };
  const bytes = typeof content.blob === 'string' ? fromBase64(content.blob) : undefined;
  if (!bytes) throw new ProtocolViolationError(`resources/read ${uri}: neither text nor a valid base64 blob`);
  return { ...base, bytes };
}

const DIGEST = /^sha256:[0-9a-f]{64}$/;

/** A skill entry from the wire, shape-checked: a bad one is the server's fault, said clearly. */
function checkEntry(item: unknown, method: string): SkillEntry {
  if (!isJsonObject(item) || typeof item.uri !== 'string' || !isJsonObject(item.frontmatter))
    throw new ProtocolViolationError(`${method}: a skill entry needs a uri and a frontmatter object`);
  const { uri, frontmatter, resources } = item;
  if (resources === 'dynamic') return { uri, frontmatter, resources };
  if (!Array.isArray(resources))
    throw new ProtocolViolationError(`${method}: ${uri}: resources must be an array or "dynamic"`);
  const files = resources.map((file): SkillFile => {
    if (
      !isJsonObject(file) ||
      typeof file.uri !== 'string' ||
      typeof file.digest !== 'string' ||
      !DIGEST.test(file.digest) ||
      typeof file.size !== 'number' ||
      !Number.isSafeInteger(file.size) ||
      file.size < 0
    )
      throw new ProtocolViolationError(
        `${method}: ${uri}: each file needs a uri, a sha256 digest and a size`,
      );
    return { uri: file.uri, digest: file.digest, size: file.size };
  });
  if (!files.some((file) => file.uri === uri))
    throw new ProtocolViolationError(`${method}: ${uri}: the manifest does not list SKILL.md itself`);
  return { uri, frontmatter, resources: files };
}
