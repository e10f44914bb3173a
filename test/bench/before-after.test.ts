/**
 * BENCH_BASELINE: the baseline setup (`keelBefore`, Keel built from a git ref) gets its own rows and
 * a "Before/after" table pairing it with the current build per repetition; its temporary worktree
 * is removed without touching the repository's node_modules it links to; a ref that names no
 * commit is refused before anything is created.
 */
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { baselineSetup, prepareBaseline, removeBaseline } from '../../bench/lib/baseline.mjs';
import { writeReport } from '../../bench/lib/report.mjs';
import { benchSetups } from '../../bench/lib/setups.mjs';
import { TEST_RUN_INFO } from './run-info.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

const info = TEST_RUN_INFO;

/** The row of the markdown table line starting with `| first`, as trimmed cells. */
function rowOf(markdown: string, first: string): string[] | undefined {
  const line = markdown.split('\n').find((l) => l.startsWith(`| ${first} `));
  return line
    ?.split('|')
    .slice(1, -1)
    .map((c) => c.trim());
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {
    cwd,
    encoding: 'utf8',
  }).trim();
}

describe('bench baseline (before/after in the same run)', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('pairs the baseline and the current build per repetition, each ÷ bare and current ÷ before', async () => {
    const { servers, entries } = benchSetups(root);
    const before = baselineSetup({ ref: 'main~2', short: 'abc1234' });
    const at = servers.findIndex((s) => s.key === 'keel') + 1;
    dir = mkdtempSync(join(tmpdir(), 'keel-bench-before-after-'));
    const out = join(dir, 'report.md');
    await writeReport(out, {
      info: { ...info, baseline: { ref: 'main~2', sha: 'abc1234'.padEnd(40, '0'), short: 'abc1234' } },
      servers: [...servers.slice(0, at), before, ...servers.slice(at)],
      entries,
      results: {
        'http.c64.cpu': { keel: [30, 33], keelBefore: [40, 44], bare: [20, 22] },
        'sessions.bytes': { keel: [4096, 4096], keelBefore: [8192, 10240] },
      },
      errors: [],
      modules: {},
      profiles: [],
    });
    const markdown = readFileSync(out, 'utf8');
    expect(markdown).toContain('BENCH_BASELINE=main~2');
    const section = markdown.slice(markdown.indexOf('## Before/after'), markdown.indexOf('## Results'));
    // before 40/20, 44/22 = 2×; now 30/20, 33/22 = 1.5×; now ÷ before 30/40, 33/44 = 0.75×.
    expect(rowOf(section, 'HTTP with sessions, `echo` c=64: server CPU per call')).toEqual([
      'HTTP with sessions, `echo` c=64: server CPU per call',
      '≤ 1.25× bare',
      '2.00×',
      '1.50×',
      '0.75×',
      'missed → missed',
    ]);
    expect(rowOf(section, 'memory per idle HTTP session (RSS, after full GC)')).toEqual([
      'memory per idle HTTP session (RSS, after full GC)',
      '≤ 8.00 KB',
      '9.00 (8.00–10.00) KB',
      '4.00 KB',
      '0.45× (0.40×–0.50×)',
      'missed → met',
    ]);
    // Targets neither build ran in (a partial run), and the zod / web targets, are left out.
    expect(section).not.toContain('stdio, 64 `echo` in flight');
    expect(section).not.toContain('zod');
    expect(rowOf(section, 'HTTP sessions c=64')).toEqual(['HTTP sessions c=64', '2.00×', '1.50×', '0.75×']);
    // The baseline also has its row in the results table, next to Keel's.
    const results = markdown.slice(markdown.indexOf('## Results'));
    expect(rowOf(results, 'Keel before (abc1234)')?.slice(-2)).toEqual(['42.0 (40.0–44.0)', '2.00×']);
  });

  it('writes no Before/after section without a baseline', async () => {
    const { servers, entries } = benchSetups(root);
    dir = mkdtempSync(join(tmpdir(), 'keel-bench-before-after-'));
    const out = join(dir, 'report.md');
    await writeReport(out, {
      info,
      servers,
      entries,
      results: { 'http.c64.cpu': { keel: [30], bare: [20] } },
      errors: [],
      modules: {},
      profiles: [],
    });
    expect(readFileSync(out, 'utf8')).not.toContain('Before/after');
  });

  it('removes the worktree and its node_modules link, leaving the linked node_modules intact', () => {
    dir = mkdtempSync(join(tmpdir(), 'keel-bench-baseline-'));
    const repo = join(dir, 'repo');
    mkdirSync(join(repo, 'node_modules', 'dep'), { recursive: true });
    writeFileSync(join(repo, 'node_modules', 'dep', 'index.js'), '');
    writeFileSync(join(repo, '.gitignore'), 'node_modules/\n');
    git(repo, 'init', '-q');
    git(repo, 'add', '.gitignore');
    git(repo, 'commit', '-q', '-m', 'one');
    const tree = join(repo, 'bench', '.work', 'baseline-x');
    git(repo, 'worktree', 'add', '-q', '--detach', tree, 'HEAD');
    symlinkSync(join(repo, 'node_modules'), join(tree, 'node_modules'), 'dir');
    writeFileSync(join(tree, 'untracked.txt'), 'built output');

    removeBaseline(repo, tree);

    expect(existsSync(tree)).toBe(false);
    // The worktree's own path, not a bare 'baseline-x': the temporary directory's random suffix
    // (keel-bench-baseline-XXXXXX) may itself start with an x (it did once, failing CI).
    expect(git(repo, 'worktree', 'list')).not.toContain(join('bench', '.work', 'baseline-x'));
    expect(existsSync(join(repo, 'node_modules', 'dep', 'index.js'))).toBe(true);
  });

  it('refuses a ref that names no commit, before creating anything', async () => {
    const calls: string[] = [];
    await expect(
      prepareBaseline(root, 'no-such-ref-for-the-bench', {
        log: (m) => calls.push(m),
        onCleanup: () => calls.push('onCleanup'),
      }),
    ).rejects.toThrow('BENCH_BASELINE=no-such-ref-for-the-bench does not name a commit of this repository');
    expect(calls).toEqual([]);
  });
});
