/**
 * Issue 27 skills (SEP-2640), client side: `SkillsClient` lists without fetching, loads on demand,
 * and refuses a file whose size, digest or frontmatter differs from its entry with a
 * SkillVerificationError naming what differed. Tampering is done by a server interceptor, the
 * way a compromised or buggy server would change what it sends.
 */
import { describe, expect, test } from 'vitest';
import { SkillsClient } from 'keel-mcp/client';
import { SkillVerificationError, type JsonObject } from 'keel-mcp/core';
import { McpServer, skills } from 'keel-mcp/server';
import { useProcessGuard } from '../helpers/guard.js';
import { ERAS, FORMS_MD, PDF_MD, connect, pdfSkill, sha256 } from './helpers.js';

useProcessGuard();

const INFO = { name: 'skills', version: '1.0.0' };
const SKILL_MD = 'skill://pdf-processing/SKILL.md';
const FORMS = 'skill://pdf-processing/references/FORMS.md';

/** A server publishing pdfSkill(); `tamper` rewrites the text of resources/read results; reads are counted. */
function server(
  tamper?: (uri: string, text: string) => string,
  fixEntry?: (entry: JsonObject) => Promise<void>,
) {
  const reads: string[] = [];
  const methods: string[] = [];
  const mcp = new McpServer(INFO).extend(skills({ skills: [pdfSkill()] }));
  mcp.use(async (call, next) => {
    methods.push(call.method);
    if (call.method === 'resources/read') reads.push(String(call.params.uri));
    const result = await next();
    if (call.method === 'resources/read' && tamper) {
      const [content] = result.contents as JsonObject[];
      return {
        ...result,
        contents: [{ ...content, text: tamper(String(call.params.uri), String(content!.text)) }],
      };
    }
    if (call.method === 'skills/list' && fixEntry) {
      const entries = structuredClone(result.skills) as JsonObject[];
      for (const entry of entries) await fixEntry(entry);
      return { ...result, skills: entries };
    }
    return result;
  });
  return { mcp, reads, methods };
}

describe.each(ERAS)('%s era', (era) => {
  test('issue 27 skills: list fetches no skill file (no prefetch)', async () => {
    const { mcp, reads, methods } = server();
    const client = new SkillsClient(await connect(mcp, era));
    expect(client.supported).toBe(true);
    const entries = await client.list();
    expect(entries.map((entry) => entry.uri)).toEqual([SKILL_MD]);
    expect(methods).toContain('skills/list');
    expect(reads).toEqual([]);
  });

  test('issue 27 skills: load reads SKILL.md only, verified; files are read when asked', async () => {
    const { mcp, reads } = server();
    const client = new SkillsClient(await connect(mcp, era));
    const [entry] = await client.list();
    const skill = await client.load(entry!);
    expect(skill).toMatchObject({
      name: 'pdf-processing',
      text: PDF_MD,
      body: '\nRead references/FORMS.md first.\n',
    });
    expect(reads).toEqual([SKILL_MD]);
    const forms = await client.readFile(entry!, FORMS);
    expect(forms.text).toBe(FORMS_MD);
    const logo = await client.readFile(entry!, 'skill://pdf-processing/assets/logo.png');
    expect([...logo.bytes]).toEqual([0x89, 0x50, 0x4e, 0x47, 0, 255]);
    expect(reads).toEqual([SKILL_MD, FORMS, 'skill://pdf-processing/assets/logo.png']);
    // By URI: skills/get first, then the same verification.
    expect((await client.load(SKILL_MD)).name).toBe('pdf-processing');
    await expect(client.readFile(entry!, 'skill://pdf-processing/unlisted.md')).rejects.toThrow(
      /is not a file of skill/,
    );
  });

  test('issue 27 skills: a tampered digest (same size) is refused with SkillVerificationError', async () => {
    const { mcp } = server((uri, text) => (uri === SKILL_MD ? text.replace('first.', 'later.') : text));
    const client = new SkillsClient(await connect(mcp, era));
    const [entry] = await client.list();
    const error = await client.load(entry!).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SkillVerificationError);
    expect(error).toMatchObject({ uri: SKILL_MD, check: 'digest', expected: await sha256(PDF_MD) });
  });

  test('issue 27 skills: extra bytes are refused as a size mismatch', async () => {
    const { mcp } = server((uri, text) => (uri === FORMS ? `${text}extra` : text));
    const client = new SkillsClient(await connect(mcp, era));
    const [entry] = await client.list();
    await client.load(entry!);
    await expect(client.readFile(entry!, FORMS)).rejects.toMatchObject({
      name: 'SkillVerificationError',
      check: 'size',
      expected: Buffer.byteLength(FORMS_MD),
      actual: Buffer.byteLength(FORMS_MD) + 5,
    });
  });

  test('issue 27 skills: frontmatter differing from the entry is refused, naming the field', async () => {
    const evil = PDF_MD.replace('Extract, fill, and assemble PDF documents', 'Exfiltrate credentials');
    // The manifest matches the tampered file, so only the frontmatter comparison can catch it.
    const { mcp } = server(
      (uri, text) => (uri === SKILL_MD ? evil : text),
      async (entry) => {
        const md = (entry.resources as JsonObject[]).find((file) => file.uri === SKILL_MD)!;
        md.digest = await sha256(evil);
        md.size = Buffer.byteLength(evil);
      },
    );
    const client = new SkillsClient(await connect(mcp, era));
    const [entry] = await client.list();
    await expect(client.load(entry!)).rejects.toMatchObject({
      name: 'SkillVerificationError',
      check: 'frontmatter',
      fields: ['description'],
    });
  });
});
