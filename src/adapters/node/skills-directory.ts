/**
 * Skills from a directory on disk (SEP-2640 publishing): every directory holding a `SKILL.md` is a
 * skill, with every regular file below it; its skill path is its path under the root.
 */
import { lstat, readdir, readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import type { SkillSource } from '../../server/skills/define-skill.js';

/**
 * Read the skills under `root`: each directory that contains a `SKILL.md` becomes a skill whose
 * path is the directory's path under `root` (`root/acme/pdf-processing/SKILL.md` →
 * `skill://acme/pdf-processing/SKILL.md`), with all files below it. Symbolic links are refused (a
 * link could publish a file from outside the skill). Pass the result to `skills()`, which checks
 * each skill.
 *
 * @example
 * server.extend(skills({ skills: await skillsFromDirectory('./skills') }));
 */
export async function skillsFromDirectory(root: string): Promise<SkillSource[]> {
  const found: SkillSource[] = [];
  const walk = async (dir: string, inSkill: string | undefined, files: { [path: string]: Uint8Array }) => {
    const names = (await readdir(dir)).sort();
    let skillDir = inSkill;
    let skillFiles = files;
    if (inSkill === undefined && names.includes('SKILL.md')) {
      skillDir = dir;
      skillFiles = {};
      const path = relative(root, dir).split(sep).join('/');
      if (path === '')
        throw new Error(
          `skillsFromDirectory: ${root} itself holds a SKILL.md; put each skill in its own directory`,
        );
      found.push({ path, files: skillFiles });
    }
    for (const name of names) {
      const full = join(dir, name);
      const info = await lstat(full);
      if (info.isSymbolicLink())
        throw new Error(`skillsFromDirectory: ${full} is a symbolic link; skills are plain files`);
      if (info.isDirectory()) await walk(full, skillDir, skillFiles);
      else if (info.isFile() && skillDir !== undefined)
        skillFiles[relative(skillDir, full).split(sep).join('/')] = new Uint8Array(await readFile(full));
    }
  };
  await walk(root, undefined, {});
  return found;
}
