/**
 * Issue 27 skills (SEP-2640), server side: `skills()` publishes skills as `skill://` resources with
 * `skills/list`, `skills/get` and `resources/directory/read`, in both eras; bad skills are refused
 * when they are defined.
 */
import { describe, expect, test } from 'vitest';
import { ErrorCode, type JsonObject } from 'keel-mcp/core';
import { McpServer, SKILLS_EXTENSION, skills, type SkillEntry } from 'keel-mcp/server';
import { useProcessGuard } from '../helpers/guard.js';
import { ERAS, FORMS_MD, PDF_MD, connect, pdfSkill, sha256, skill } from './helpers.js';

useProcessGuard();

const INFO = { name: 'skills', version: '1.0.0' };

describe.each(ERAS)('%s era', (era) => {
  test('issue 27 skills: the server declares the extension and lists entries with digests and sizes', async () => {
    const server = new McpServer(INFO).extend(skills({ skills: [pdfSkill()] }));
    const client = await connect(server, era);
    expect(client.serverExtension(SKILLS_EXTENSION)).toEqual({});
    expect(client.serverCapabilities?.resources).toBeDefined();
    const result = await client.lowLevel.request('skills/list', {});
    const [entry] = result.skills as SkillEntry[];
    expect(entry).toEqual({
      uri: 'skill://pdf-processing/SKILL.md',
      frontmatter: {
        name: 'pdf-processing',
        description: 'Extract, fill, and assemble PDF documents',
        metadata: { owner: 'tests' },
      },
      resources: [
        {
          uri: 'skill://pdf-processing/SKILL.md',
          digest: await sha256(PDF_MD),
          size: Buffer.byteLength(PDF_MD),
        },
        {
          uri: 'skill://pdf-processing/assets/logo.png',
          digest: await sha256(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 255])),
          size: 6,
        },
        {
          uri: 'skill://pdf-processing/references/FORMS.md',
          digest: await sha256(FORMS_MD),
          size: Buffer.byteLength(FORMS_MD),
        },
      ],
    });
    // Caching hints are a 2026-07-28 thing (SEP-2549); a legacy result carries none.
    if (era === 'modern') expect(result).toMatchObject({ ttlMs: 0, cacheScope: 'private' });
    else expect(result.ttlMs).toBeUndefined();
  });

  test('issue 27 skills: every file is a resource; SKILL.md is text/markdown named from its frontmatter', async () => {
    const client = await connect(new McpServer(INFO).extend(skills({ skills: [pdfSkill()] })), era);
    const listed = await client.listAllResources();
    const md = listed.find((resource) => resource.uri === 'skill://pdf-processing/SKILL.md');
    expect(md).toMatchObject({
      name: 'pdf-processing',
      description: 'Extract, fill, and assemble PDF documents',
      mimeType: 'text/markdown',
    });
    const read = await client.readResource('skill://pdf-processing/SKILL.md');
    expect(read.contents[0]).toMatchObject({ mimeType: 'text/markdown', text: PDF_MD });
    const logo = await client.readResource('skill://pdf-processing/assets/logo.png');
    expect(logo.contents[0]).toMatchObject({
      mimeType: 'image/png',
      blob: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 255]).toString('base64'),
    });
  });

  test('issue 27 skills: skills/get returns one entry; an unknown URI is -32602 with the uri', async () => {
    const client = await connect(
      new McpServer(INFO).extend(skills({ skills: [pdfSkill(), skill('refunds', 'acme/billing/refunds')] })),
      era,
    );
    const got = await client.lowLevel.request('skills/get', { uri: 'skill://acme/billing/refunds/SKILL.md' });
    expect((got.skill as JsonObject).uri).toBe('skill://acme/billing/refunds/SKILL.md');
    expect(got.nextCursor).toBeUndefined();
    await expect(
      client.lowLevel.request('skills/get', { uri: 'skill://nope/SKILL.md' }),
    ).rejects.toMatchObject({
      code: ErrorCode.InvalidParams,
      data: { uri: 'skill://nope/SKILL.md' },
    });
    await expect(client.lowLevel.request('skills/get', {})).rejects.toMatchObject({
      code: ErrorCode.InvalidParams,
    });
  });

  test('issue 27 skills: skills/list pages keep each entry whole and end; a forged cursor is -32602', async () => {
    const names = ['alpha', 'beta', 'gamma', 'delta', 'epsilon'];
    const server = new McpServer(INFO).extend(
      skills({ skills: names.map((name) => skill(name)), pageSize: 2 }),
    );
    const client = await connect(server, era);
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 10; page++) {
      const result = await client.lowLevel.request('skills/list', cursor === undefined ? {} : { cursor });
      seen.push(...(result.skills as SkillEntry[]).map((entry) => entry.frontmatter.name as string));
      cursor = result.nextCursor as string | undefined;
      if (cursor === undefined) break;
    }
    expect(seen).toEqual(names);
    await expect(client.lowLevel.request('skills/list', { cursor: 'forged' })).rejects.toMatchObject({
      code: ErrorCode.InvalidParams,
    });
  });

  test('issue 27 skills: resources/directory/read lists direct children; files and unknowns are -32602', async () => {
    const server = new McpServer(INFO).extend(skills({ skills: [pdfSkill()], directoryRead: true }));
    const client = await connect(server, era);
    expect(client.serverExtension(SKILLS_EXTENSION)).toEqual({ directoryRead: true });
    const root = await client.lowLevel.request('resources/directory/read', { uri: 'skill://pdf-processing' });
    expect(root.resources).toEqual([
      {
        uri: 'skill://pdf-processing/SKILL.md',
        name: 'SKILL.md',
        mimeType: 'text/markdown',
        size: Buffer.byteLength(PDF_MD),
      },
      { uri: 'skill://pdf-processing/assets', name: 'assets', mimeType: 'inode/directory' },
      { uri: 'skill://pdf-processing/references', name: 'references', mimeType: 'inode/directory' },
    ]);
    const refs = await client.lowLevel.request('resources/directory/read', {
      uri: 'skill://pdf-processing/references',
    });
    expect((refs.resources as JsonObject[]).map((r) => r.uri)).toEqual([
      'skill://pdf-processing/references/FORMS.md',
    ]);
    for (const uri of ['skill://pdf-processing/SKILL.md', 'skill://elsewhere'])
      await expect(client.lowLevel.request('resources/directory/read', { uri })).rejects.toMatchObject({
        code: ErrorCode.InvalidParams,
      });
  });

  test('issue 27 skills: without directoryRead the method is not served', async () => {
    const client = await connect(new McpServer(INFO).extend(skills({ skills: [pdfSkill()] })), era);
    await expect(
      client.lowLevel.request('resources/directory/read', { uri: 'skill://pdf-processing' }),
    ).rejects.toMatchObject({ code: ErrorCode.MethodNotFound });
  });
});

describe('issue 27 skills: a bad skill throws when it is defined', () => {
  const md = (front: string): { files: { 'SKILL.md': string } } => ({
    files: { 'SKILL.md': `---\n${front}\n---\nbody\n` },
  });
  test.each([
    ['no SKILL.md', { files: { 'README.md': 'x' } }, /no SKILL\.md/],
    ['no frontmatter', { files: { 'SKILL.md': '# just text' } }, /must begin with a "---" YAML frontmatter/],
    ['bad YAML', md('name: [unclosed'), /line 1/],
    ['name with capitals', md('name: PDF\ndescription: d'), /naming rules/],
    ['name with a double hyphen', md('name: a--b\ndescription: d'), /naming rules/],
    ['no description', md('name: pdf'), /non-empty description/],
    [
      'path not ending in the name',
      { path: 'acme/other', ...md('name: pdf\ndescription: d') },
      /must end with the frontmatter name "pdf"/,
    ],
    ['path with ..', { path: '../pdf', ...md('name: pdf\ndescription: d') }, /invalid segment/],
    [
      'file escaping the skill',
      { files: { ...md('name: pdf\ndescription: d').files, '../x': 'x' } },
      /not a plain relative path/,
    ],
    [
      'nested SKILL.md',
      { files: { ...md('name: pdf\ndescription: d').files, 'sub/SKILL.md': 'x' } },
      /do not nest/,
    ],
  ])('%s', (_what, source, message) => {
    expect(() => skills({ skills: [source as never] })).toThrow(message);
  });

  test('two skills at one URI, and nested skill paths', () => {
    expect(() => skills({ skills: [skill('pdf'), skill('pdf')] })).toThrow(
      /two skills are published at skill:\/\/pdf\/SKILL\.md/,
    );
    expect(() => skills({ skills: [skill('pdf', 'a/pdf'), skill('inner', 'a/pdf/inner')] })).toThrow(/nest/);
  });
});
