/**
 * The skills extension (SEP-2640, `io.modelcontextprotocol/skills`) on the server: every file of
 * every skill is a resource (`skill://<skill-path>/<file-path>`, `SKILL.md` as `text/markdown`
 * named and described from its frontmatter), `skills/list` and `skills/get` give the entries with
 * each file's digest and size, and, with `directoryRead`, `resources/directory/read` lists a skill
 * directory's children. Built on `McpServer.extend` like any user extension.
 */
import { ErrorCode, McpError } from '../../core/errors.js';
import type { Extension } from '../../core/extensions.js';
import type { JsonObject } from '../../core/jsonrpc.js';
import { toBase64 } from '../../core/base64.js';
import {
  DIRECTORY_MIME_TYPE,
  SKILL_MD_MIME_TYPE,
  SKILLS_EXTENSION,
  skillDigest,
  type SkillEntry,
} from '../../core/skills/skill-entry.js';
import { MetaKey } from '../../core/types/modern.js';
import type { McpServer } from '../mcp-server.js';
import { paginate } from '../pagination.js';
import type { ToolContext } from '../tool-context.js';
import { checkSkill, type CheckedSkill, type SkillSource } from './define-skill.js';
import { mimeTypeOf } from './mime-types.js';

/**
 * Options of {@link skills}.
 *
 * @example
 * const options: SkillsOptions = { skills: [pdfSkill], directoryRead: true, pageSize: 20 };
 */
export interface SkillsOptions {
  /** The skills to publish (in code, or from `skillsFromDirectory` of `keel-mcp/node`). */
  skills: readonly SkillSource[];
  /** Also serve `resources/directory/read` on skill directories (declared as `directoryRead: true`). */
  directoryRead?: boolean;
  /** Entries per `skills/list` page (and children per directory page); default 50. */
  pageSize?: number;
  /** Caching hints of `skills/list` and `skills/get` results in 2026-07-28 (default `{ ttlMs: 0, cacheScope: 'private' }`). */
  cache?: { ttlMs: number; cacheScope: 'public' | 'private' };
}

interface Served {
  skill: CheckedSkill;
  uri: string;
  entry: Promise<SkillEntry>;
}

/**
 * The skills extension: `server.extend(skills({ skills: [...] }))`. Every skill is checked now
 * (SKILL.md present, frontmatter `name` following the Agent Skills rules and equal to the final
 * path segment, a `description`, plain relative file paths, no nested SKILL.md, SEP-2640's size
 * limits, no URI served twice): a bad one throws here. Works in both eras.
 *
 * @example
 * server.extend(
 *   skills({
 *     skills: [{ files: { 'SKILL.md': '---\nname: greet\ndescription: Greets people\n---\nSay hello.' } }],
 *   }),
 * );
 */
export function skills(options: SkillsOptions): Extension<McpServer> {
  if (typeof options !== 'object' || options === null || !Array.isArray(options.skills))
    throw new TypeError('skills: options are { skills: [...] }');
  const pageSize = options.pageSize ?? 50;
  if (!Number.isSafeInteger(pageSize) || pageSize < 1)
    throw new RangeError(`skills: pageSize must be a positive integer, got ${String(options.pageSize)}`);
  const cache = options.cache ?? { ttlMs: 0, cacheScope: 'private' };
  const served = new Map<string, Served>();
  for (const source of options.skills) {
    const skill = checkSkill(source);
    const uri = `skill://${skill.path}/SKILL.md`;
    if (served.has(uri)) throw new Error(`skills: two skills are published at ${uri}`);
    for (const other of served.values())
      if (
        `${skill.path}/`.startsWith(`${other.skill.path}/`) ||
        `${other.skill.path}/`.startsWith(`${skill.path}/`)
      )
        throw new Error(
          `skills: skill "${skill.path}" and skill "${other.skill.path}" nest; skills do not nest`,
        );
    // Digests are computed once, on first use (WebCrypto is asynchronous; setup is not).
    let entry: Promise<SkillEntry> | undefined;
    served.set(uri, {
      skill,
      uri,
      get entry() {
        return (entry ??= entryOf(skill, uri));
      },
    });
  }
  const list = [...served.values()];
  const directories = options.directoryRead === true ? directoryTree(list) : undefined;

  // A 2026-07-28 result carries caching hints (SEP-2549); a legacy one has no such fields.
  const cached = (result: JsonObject, ctx: ToolContext): JsonObject =>
    ctx.meta?.[MetaKey.ProtocolVersion] === undefined ? result : { ...result, ...cache };

  return {
    id: SKILLS_EXTENSION,
    settings: directories ? { directoryRead: true } : {},
    setup(server) {
      for (const { skill } of list) registerFiles(server, skill);
      server.method('skills/list', async (params, ctx) => {
        const page = paginate('skills', list, params, pageSize);
        page.skills = await Promise.all((page.skills as Served[]).map((item) => item.entry));
        return cached(page, ctx);
      });
      server.method('skills/get', async (params, ctx) => {
        const uri = params.uri;
        if (typeof uri !== 'string')
          throw new McpError(ErrorCode.InvalidParams, 'skills/get: uri must be a string');
        const item = served.get(uri);
        if (!item) throw new McpError(ErrorCode.InvalidParams, `Unknown skill: ${uri}`, { uri });
        return cached({ skill: await item.entry }, ctx);
      });
      if (directories)
        server.method('resources/directory/read', (params) => {
          const uri = params.uri;
          const children = typeof uri === 'string' ? directories.get(uri) : undefined;
          if (!children)
            throw new McpError(ErrorCode.InvalidParams, `Not a directory resource: ${String(uri)}`, {
              uri: uri ?? null,
            });
          return paginate('resources', children, params, pageSize);
        });
    },
  };
}

async function entryOf(skill: CheckedSkill, uri: string): Promise<SkillEntry> {
  const base = uri.slice(0, -'SKILL.md'.length);
  const resources = await Promise.all(
    [...skill.files].map(async ([path, bytes]) => ({
      uri: base + path,
      digest: await skillDigest(bytes),
      size: bytes.byteLength,
    })),
  );
  return { uri, frontmatter: skill.frontmatter, resources };
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function registerFiles(server: McpServer, skill: CheckedSkill): void {
  const base = `skill://${skill.path}/`;
  for (const [path, bytes] of skill.files) {
    const isSkillMd = path === 'SKILL.md';
    const mimeType = isSkillMd ? SKILL_MD_MIME_TYPE : mimeTypeOf(path);
    const uri = base + path;
    let text: string | undefined;
    try {
      text =
        mimeType.startsWith('text/') || /json|xml|yaml|javascript/.test(mimeType)
          ? utf8.decode(bytes)
          : undefined;
    } catch {
      text = undefined; // not UTF-8 after all: sent as a blob, the same bytes
    }
    const contents = text === undefined ? { uri, mimeType, blob: toBase64(bytes) } : { uri, mimeType, text };
    server.resource(
      isSkillMd ? skill.name : `${skill.name}/${path}`,
      uri,
      isSkillMd
        ? { mimeType, description: skill.frontmatter.description as string, size: bytes.byteLength }
        : { mimeType, size: bytes.byteLength },
      () => ({ contents: [contents] }),
    );
  }
}

/** Directory URI → its direct children (files and subdirectories), for every skill directory. */
function directoryTree(list: readonly Served[]): Map<string, JsonObject[]> {
  const tree = new Map<string, JsonObject[]>();
  for (const { skill } of list) {
    const root = `skill://${skill.path}`;
    const ensure = (dir: string): JsonObject[] => {
      let children = tree.get(dir);
      if (!children) tree.set(dir, (children = []));
      return children;
    };
    ensure(root);
    for (const [path, bytes] of skill.files) {
      const parts = path.split('/');
      let dir = root;
      for (const part of parts.slice(0, -1)) {
        const child = `${dir}/${part}`;
        if (!tree.has(child)) ensure(dir).push({ uri: child, name: part, mimeType: DIRECTORY_MIME_TYPE });
        ensure(child);
        dir = child;
      }
      const name = parts[parts.length - 1]!;
      ensure(dir).push({
        uri: `${root}/${path}`,
        name,
        mimeType: path === 'SKILL.md' ? SKILL_MD_MIME_TYPE : mimeTypeOf(path),
        size: bytes.byteLength,
      });
    }
  }
  return tree;
}
