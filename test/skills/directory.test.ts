/**
 * Issue 27 skills (SEP-2640): skills published from a directory on disk (`skillsFromDirectory`
 * of `keel-mcp/node`): each directory holding a SKILL.md is a skill at its path under the root,
 * with every file below it; links and nested skills are refused.
 */
import { mkdtemp, mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { SkillsClient } from 'keel-mcp/client';
import { skillsFromDirectory } from 'keel-mcp/node';
import { McpServer, skills } from 'keel-mcp/server';
import { useProcessGuard } from '../helpers/guard.js';
import { connect } from './helpers.js';

useProcessGuard();

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function tree(files: { [path: string]: string }): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'keel-skills-'));
  dirs.push(root);
  for (const [path, text] of Object.entries(files)) {
    await mkdir(join(root, path, '..'), { recursive: true });
    await writeFile(join(root, path), text);
  }
  return root;
}

const md = (name: string): string =>
  `---\nname: ${name}\ndescription: "The ${name} skill"\n---\nUse ${name}.\n`;

test('issue 27 skills: a directory of skills is published and loads verified', async () => {
  const root = await tree({
    'pdf-processing/SKILL.md': md('pdf-processing'),
    'pdf-processing/references/FORMS.md': '# Forms\n',
    'acme/billing/refunds/SKILL.md': md('refunds'),
    'notes.txt': 'not in any skill',
  });
  const sources = await skillsFromDirectory(root);
  expect(sources.map((source) => source.path)).toEqual(['acme/billing/refunds', 'pdf-processing']);
  const client = new SkillsClient(
    await connect(new McpServer({ name: 'd', version: '1' }).extend(skills({ skills: sources })), 'legacy'),
  );
  const entries = await client.list();
  expect(entries.map((entry) => entry.uri)).toEqual([
    'skill://acme/billing/refunds/SKILL.md',
    'skill://pdf-processing/SKILL.md',
  ]);
  const pdf = entries[1]!;
  expect((await client.load(pdf)).frontmatter).toEqual({
    name: 'pdf-processing',
    description: 'The pdf-processing skill',
  });
  expect((await client.readFile(pdf, 'skill://pdf-processing/references/FORMS.md')).text).toBe('# Forms\n');
});

test('issue 27 skills: a nested SKILL.md, a misnamed skill and a symbolic link are refused', async () => {
  const nested = await tree({ 'outer/SKILL.md': md('outer'), 'outer/inner/SKILL.md': md('inner') });
  expect(() => skills({ skills: [] })).not.toThrow();
  await expect(skillsFromDirectory(nested).then((s) => skills({ skills: s }))).rejects.toThrow(/do not nest/);
  const misnamed = await tree({ 'pdf/SKILL.md': md('other') });
  await expect(skillsFromDirectory(misnamed).then((s) => skills({ skills: s }))).rejects.toThrow(
    /skill path "pdf" must end with the frontmatter name "other"/,
  );
  const linked = await tree({ 'pdf/SKILL.md': md('pdf') });
  await symlink('/etc/hostname', join(linked, 'pdf', 'leak.txt'));
  await expect(skillsFromDirectory(linked)).rejects.toThrow(/symbolic link/);
});
