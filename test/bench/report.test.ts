/**
 * The benchmark's setups and report: every setup names a server that exists, and the report shows
 * each setup's figures in the table of its measurement, with its ratio to the bare limit paired
 * per repetition, and the like-for-like comparison against the official SDKs.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { baselineSetup } from '../../bench/lib/baseline.mjs';
import { writeReport } from '../../bench/lib/report.mjs';
import { benchSetups } from '../../bench/lib/setups.mjs';
import { TEST_RUN_INFO } from './run-info.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Keel's servers are started from dist/ (package scripts); their sources are bench/servers/*.ts. */
function sourceOf(file: string): string {
  const dist = join(root, 'dist', 'bench', 'servers');
  return file.startsWith(dist)
    ? join(root, 'bench', 'servers', file.slice(dist.length).replace(/\.js$/, '.ts'))
    : file;
}

/** The table under `### heading`, as rows of trimmed cells (header and separator left out). */
function tableAfter(markdown: string, heading: string): string[][] {
  const start = markdown.indexOf(`### ${heading}\n`);
  expect(start, `section "${heading}"`).toBeGreaterThanOrEqual(0);
  const lines = markdown.slice(start).split('\n');
  const first = lines.findIndex((line) => line.startsWith('|'));
  const rows: string[][] = [];
  for (const line of lines.slice(first + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(
      line
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim()),
    );
  }
  return rows;
}

describe('bench setups and report', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('every setup runs a server file that exists, under a distinct key', () => {
    const { servers } = benchSetups(root);
    expect(new Set(servers.map((s) => s.key)).size).toBe(servers.length);
    for (const server of servers) {
      const files = [server.stdio, server.http, server.stateless, server.modern].filter(
        (f) => f !== undefined,
      );
      expect(files.length, server.key).toBeGreaterThan(0);
      for (const file of files) expect(existsSync(sourceOf(file)), file).toBe(true);
    }
    // The JSON-answer setups cannot serve wait_sampling on the call's stream, and say so.
    expect(servers.filter((s) => s.sampling === false).map((s) => s.key)).toEqual(['sdk1Json', 'sdk2Json']);
  });

  it('shows every setup in the table of what it measured, with its ratio to bare', async () => {
    const { servers, entries } = benchSetups(root);
    dir = mkdtempSync(join(tmpdir(), 'keel-bench-report-'));
    const out = join(dir, 'report.md');
    // Two repetitions; CPU per call (µs) of HTTP with sessions, c=64, per setup.
    const cpu: Record<string, number[]> = {
      keel: [30, 33],
      keelZod: [36, 44],
      keelIntercepted: [31, 34],
      keelOtel: [45, 50],
      keelWeb: [60, 66],
      keelBun: [54, 60],
      keelDeno: [66, 66],
      sdk1: [150, 165],
      sdk1Json: [120, 132],
      sdk2: [180, 198],
      sdk2Json: [90, 99],
      bare: [30, 22],
    };
    await writeReport(out, {
      info: TEST_RUN_INFO,
      servers,
      entries,
      // Over stdio only the default SDK setups exist: the comparison falls back to them.
      results: { 'http.c64.cpu': cpu, 'stdio.c64.cpu': { keelZod: [4, 4], sdk1: [20, 20], sdk2: [40, 40] } },
      errors: [],
      modules: {},
      profiles: [],
    });
    const markdown = readFileSync(out, 'utf8');
    const label = (key: string): string => servers.find((s) => s.key === key)!.label;

    const rows = tableAfter(markdown, 'HTTP with sessions — `echo`, concurrency 64 (64 sessions)');
    // Setup, then req/s, p50, p99 (not measured here), CPU and its ratio (median of 30/30, 33/22).
    expect(rows).toContainEqual([
      `**${label('keel')}**`,
      '—',
      '—',
      '—',
      '31.5 (30.0–33.0)',
      '1.25× (1.00×–1.50×)',
    ]);
    expect(rows).toContainEqual([label('keelWeb'), '—', '—', '—', '63.0 (60.0–66.0)', '2.50× (2.00×–3.00×)']);
    expect(rows).toContainEqual([label('keelBun'), '—', '—', '—', '57.0 (54.0–60.0)', '2.26× (1.80×–2.73×)']);
    expect(rows).toContainEqual([label('keelDeno'), '—', '—', '—', '66.0', '2.60× (2.20×–3.00×)']);
    expect(rows).toContainEqual([
      label('sdk2Json'),
      '—',
      '—',
      '—',
      '94.5 (90.0–99.0)',
      '3.75× (3.00×–4.50×)',
    ]);
    expect(rows.map((row) => row[0])).toHaveLength(servers.length);
    // Issue 26: the interceptor chain has its own target against Keel without interceptors.
    expect(markdown).toContain('3 no-op interceptors vs none, HTTP with sessions `echo` c=64');
    // OpenTelemetry on: a reported figure against Keel (45/30, 50/33), no limit and no status.
    const otel = markdown
      .split('\n')
      .find((l) => l.startsWith('| OpenTelemetry on (SDK, in-memory exporters) vs off, HTTP with sessions'));
    expect(
      otel
        ?.split('|')
        .map((c) => c.trim())
        .slice(2, 6),
    ).toEqual([label('keelOtel'), `none (÷ ${label('keel')})`, '1.51× (1.50×–1.52×)', 'reference']);
    // A measurement nobody ran has no table.
    expect(markdown).not.toContain('### stdio — sequential');

    // Keel ÷ SDK 1.x, Keel ÷ SDK v2 (the defaults), then like for like: Keel with zod over the SDKs
    // with JSON answers, paired per repetition (36/120 and 44/132; 36/90 and 44/99).
    const comparison = markdown.slice(markdown.indexOf('## Keel against the official SDKs'));
    const line = comparison.split('\n').find((l) => l.startsWith('| HTTP sessions c=64'));
    expect(line?.split('|').map((c) => c.trim())).toEqual([
      '',
      'HTTP sessions c=64',
      '0.20×',
      '0.17×',
      '0.32× (0.30×–0.33×)',
      '0.42× (0.40×–0.44×)',
      '',
    ]);
    const stdio = comparison.split('\n').find((l) => l.startsWith('| stdio 64 in flight'));
    expect(stdio?.split('|').map((c) => c.trim())).toEqual([
      '',
      'stdio 64 in flight',
      '—',
      '—',
      '0.20×',
      '0.10×',
      '',
    ]);
  });
  it('shows the 2026-07-28 rows, their target (≤ 1.4× bare) and Keel ÷ SDK v2', async () => {
    const { servers, entries } = benchSetups(root);
    dir = mkdtempSync(join(tmpdir(), 'keel-bench-report-'));
    const out = join(dir, 'report.md');
    await writeReport(out, {
      info: TEST_RUN_INFO,
      servers,
      entries,
      results: {
        'modern.c64.cpu': { keel: [30, 36], keelZod: [40, 40], sdk2: [300, 360], bare: [20, 20] },
        'modern.mrtr64.cpu': { keel: [90, 90], sdk2: [450, 450], bare: [45, 45] },
      },
      errors: [],
      modules: {},
      profiles: [],
    });
    const markdown = readFileSync(out, 'utf8');
    const label = (key: string): string => servers.find((s) => s.key === key)!.label;

    const echo = tableAfter(markdown, 'HTTP, 2026-07-28 (no session, no handshake) — `echo`, concurrency 64');
    expect(echo.map((row) => row[0])).toEqual([
      `**${label('keel')}**`,
      label('keelZod'),
      label('sdk2'),
      label('bare'),
    ]);
    expect(echo[0]).toEqual([
      `**${label('keel')}**`,
      '—',
      '—',
      '—',
      '33.0 (30.0–36.0)',
      '1.65× (1.50×–1.80×)',
    ]);
    const rounds = tableAfter(
      markdown,
      'HTTP, 2026-07-28 — `wait_sampling` `input_required` round trips, concurrency 64 (call → input_required → retry with the sampled answer → result)',
    );
    expect(rounds).toContainEqual([label('sdk2'), '—', '—', '—', '450', '10.00×']);

    // The target is on Keel's default setup: a median of 1.65× misses ≤ 1.4×; zod is a reference.
    const target = markdown.split('\n').filter((l) => l.startsWith('| HTTP 2026-07-28 (stateless)'));
    expect(target).toHaveLength(1);
    expect(target[0]!.split('|').map((c) => c.trim())).toEqual([
      '',
      'HTTP 2026-07-28 (stateless), `echo` c=64: server CPU per call',
      label('keel'),
      '≤ 1.4× bare',
      '1.65× (1.50×–1.80×)',
      '**missed**',
      '',
    ]);
    const lines = markdown.split('\n');
    const reference = lines[lines.indexOf(target[0]!) + 1]!.split('|').map((c) => c.trim());
    expect(reference).toEqual([
      '',
      '↳ same, reference',
      label('keelZod'),
      '(≤ 1.4× bare)',
      '2.00×',
      'reference',
      '',
    ]);
    expect(markdown).toContain('Measured over: stdio, HTTP with sessions, HTTP stateless, HTTP 2026-07-28.');

    const comparison = markdown.slice(markdown.indexOf('## Keel against the official SDKs'));
    const row = comparison.split('\n').find((l) => l.startsWith('| HTTP 2026-07-28 c=64'));
    // Keel ÷ SDK 1.x (no modern setup), Keel ÷ SDK v2 (30/300, 36/360), then the JSON-answer pairs,
    // which fall back to the default SDK v2 setup (keelZod 40/300, 40/360).
    expect(row?.split('|').map((c) => c.trim())).toEqual([
      '',
      'HTTP 2026-07-28 c=64',
      '—',
      '0.10×',
      '—',
      '0.12× (0.11×–0.13×)',
      '',
    ]);
  });
  it("issue 25: shows the task round trip table with each setup's CPU ÷ its own plain echo call, paired per repetition, and a reference row", async () => {
    const { servers, entries } = benchSetups(root);
    const before = baselineSetup({ ref: 'abc1234', short: 'abc1234' });
    const at = servers.findIndex((s) => s.key === 'keel') + 1;
    const all = [...servers.slice(0, at), before, ...servers.slice(at)];
    dir = mkdtempSync(join(tmpdir(), 'keel-bench-report-'));
    const out = join(dir, 'report.md');
    await writeReport(out, {
      info: {
        ...TEST_RUN_INFO,
        baseline: { ref: 'abc1234', sha: 'abc1234'.padEnd(40, '0'), short: 'abc1234' },
      },
      servers: all,
      entries,
      results: {
        // The baseline build ran the plain echo but has no task figure (it may predate tasks).
        'modern.c64.cpu': { keel: [30, 40], keelBefore: [28, 28], keelZod: [40], bare: [20, 20] },
        'modern.task64.cpu': { keel: [90, 100], keelZod: [120, 100] },
        'modern.task64.rate': { keel: [2000, 2200], keelZod: [1500, 1500] },
        'modern.task64.polls': { keel: [1, 1], keelZod: [1, 1.5] },
      },
      errors: [],
      modules: {},
      profiles: [],
    });
    const markdown = readFileSync(out, 'utf8');
    const label = (key: string): string => all.find((s) => s.key === key)!.label;
    expect(markdown).not.toContain('NaN');

    const rows = tableAfter(
      markdown,
      'HTTP, 2026-07-28 — task round trip (`echo_task`: create + `tasks/get` with the result), concurrency 64',
    );
    // Round trips/s, p50, p99, CPU, CPU ÷ the same setup's plain echo (90/30, 100/40), polls.
    // keelZod has a plain-echo figure for the first repetition only: one pair (120/40).
    expect(rows).toEqual([
      [
        `**${label('keel')}**`,
        '2,100 (2,000–2,200)',
        '—',
        '—',
        '95.0 (90.0–100)',
        '2.75× (2.50×–3.00×)',
        '1.00',
      ],
      [label('keelZod'), '1,500', '—', '—', '110 (100–120)', '3.00×', '1.25 (1.00–1.50)'],
    ]);
    const cells = (line: string): string[] => line.split('|').map((c) => c.trim());
    const lines = markdown.split('\n');
    const first = lines.findIndex((l) => l.startsWith('| HTTP 2026-07-28 task round trip'));
    expect(cells(lines[first]!)).toEqual([
      '',
      'HTTP 2026-07-28 task round trip (`echo_task`: create + `tasks/get`) ÷ a plain `echo` call, c=64: server CPU',
      label('keel'),
      'none',
      '2.75× (2.50×–3.00×)',
      'reference',
      '',
    ]);
    expect(cells(lines[first + 1]!)).toEqual([
      '',
      '↳ same, reference',
      label('keelZod'),
      'none',
      '3.00×',
      'reference',
      '',
    ]);

    // Before/after: no target row for the task round trip; its server-CPU row has '—' throughout
    // (neither the baseline nor bare has a task figure).
    const section = markdown.slice(markdown.indexOf('## Before/after'), markdown.indexOf('## Results'));
    expect(section).not.toContain('echo_task');
    const everyRow = section.split('\n').find((l) => l.startsWith('| HTTP 2026-07-28 task round trip c=64 '));
    expect(cells(everyRow!)).toEqual(['', 'HTTP 2026-07-28 task round trip c=64', '—', '—', '—', '']);
    // And in the SDK comparison the SDKs have no task figure either.
    const comparison = markdown.slice(markdown.indexOf('## Keel against the official SDKs'));
    const sdkRow = comparison
      .split('\n')
      .find((l) => l.startsWith('| HTTP 2026-07-28 task round trip c=64 '));
    expect(cells(sdkRow!)).toEqual(['', 'HTTP 2026-07-28 task round trip c=64', '—', '—', '—', '—', '']);
  });

  it('issue 25: a run without task figures has no task table and says the task reference row was not measured', async () => {
    const { servers, entries } = benchSetups(root);
    dir = mkdtempSync(join(tmpdir(), 'keel-bench-report-'));
    const out = join(dir, 'report.md');
    await writeReport(out, {
      info: TEST_RUN_INFO,
      servers,
      entries,
      results: { 'modern.c64.cpu': { keel: [30, 40], bare: [20, 20] } },
      errors: [],
      modules: {},
      profiles: [],
    });
    const markdown = readFileSync(out, 'utf8');
    const label = (key: string): string => servers.find((s) => s.key === key)!.label;
    expect(markdown).not.toContain('NaN');
    expect(markdown).not.toContain('— task round trip (`echo_task`');
    const row = markdown.split('\n').find((l) => l.startsWith('| HTTP 2026-07-28 task round trip'));
    expect(row!.split('|').map((c) => c.trim())).toEqual([
      '',
      'HTTP 2026-07-28 task round trip (`echo_task`: create + `tasks/get`) ÷ a plain `echo` call, c=64: server CPU',
      `${label('keel')}, ${label('keelZod')}`,
      'none',
      '—',
      'not measured',
      '',
    ]);
  });

  it('sets the web-path target on Bun and Deno against the Node fast path (Node-web a reference), and says why a runtime is left out', async () => {
    const { servers, entries } = benchSetups(root);
    dir = mkdtempSync(join(tmpdir(), 'keel-bench-report-'));
    const out = join(dir, 'report.md');
    const label = (key: string): string => servers.find((s) => s.key === key)!.label;
    const reason = 'could not install @deno/linux-x64-glibc@2.9.6 (npm exited with 1); npm said:';
    await writeReport(out, {
      info: TEST_RUN_INFO,
      servers,
      entries,
      results: {
        // Bun ÷ fast path per repetition: 60/30 and 66/33 (2.00×, met: the limit is inclusive);
        // Node-web 54/30 and 60/33 (1.80×, 1.82×: a reference, no status).
        'http.c64.cpu': { keel: [30, 33], keelWeb: [54, 60], keelBun: [60, 66], bare: [20, 22] },
        'stateless.c64.cpu': { keel: [30, 30], keelBun: [45, 45], bare: [20, 20] },
      },
      errors: [],
      modules: {},
      profiles: [],
      skipped: [{ key: 'keelDeno', label: label('keelDeno'), reason }],
    });
    const markdown = readFileSync(out, 'utf8');
    const cells = (line: string): string[] => line.split('|').map((c) => c.trim());
    const lines = markdown.split('\n');
    const first = lines.findIndex((l) => l.startsWith('| web Request/Response path'));
    expect(first).toBeGreaterThan(0);
    const base = `≤ 2× ${label('keel')}`;
    expect(cells(lines[first]!)).toEqual([
      '',
      'web Request/Response path, HTTP with sessions `echo` c=64: server CPU per call',
      label('keelBun'),
      base,
      '2.00×',
      'met',
      '',
    ]);
    expect(cells(lines[first + 1]!)).toEqual([
      '',
      '↳ same, reference',
      label('keelWeb'),
      `(${base})`,
      '1.81× (1.80×–1.82×)',
      'reference',
      '',
    ]);
    // Deno was left out: no row of its own, here or in any table.
    expect(lines[first + 2]!.startsWith('| HTTP stateless')).toBe(true);
    expect(markdown.split(label('keelDeno')).length - 1).toBe(1);
    expect(markdown).toContain(`- **${label('keelDeno')}** — `);
    expect(markdown).toContain(`. Left out of this run: ${reason}.`);
    expect(markdown).toContain(
      `- **${label('keelBun')}** — the default Keel server (the built \`dist/\`) and its \`createHttpHandler\`, served by \`Bun.serve\``,
    );

    // Bun is also shown as a reference under the bare-limit targets it ran in.
    const stateless = lines.findIndex((l) => l.startsWith('| HTTP stateless (legacy), `echo` c=64'));
    expect(cells(lines[stateless + 1]!)).toEqual([
      '',
      '↳ same, reference',
      label('keelBun'),
      '(≤ 1.4× bare)',
      '2.25×',
      'reference',
      '',
    ]);
  });

  it('marks a web setup over twice the Node fast path as missed, and lists it under Misses', async () => {
    const { servers, entries } = benchSetups(root);
    dir = mkdtempSync(join(tmpdir(), 'keel-bench-report-'));
    const out = join(dir, 'report.md');
    const label = (key: string): string => servers.find((s) => s.key === key)!.label;
    await writeReport(out, {
      info: TEST_RUN_INFO,
      servers,
      entries,
      // Deno ÷ Keel: 66/30 = 2.2 and 66/33 = 2.0, median 2.10×.
      results: { 'http.c64.cpu': { keel: [30, 33], keelDeno: [66, 66] } },
      errors: [],
      modules: {},
      profiles: [],
    });
    const markdown = readFileSync(out, 'utf8');
    const row = markdown
      .split('\n')
      // By cell: the columns are padded to their widest cell, right-aligned.
      .filter((l) => l.split('|').some((c) => c.trim() === label('keelDeno')) && l.includes('≤ 2×'));
    expect(row).toHaveLength(1);
    expect(row[0]!.split('|').map((c) => c.trim())).toEqual([
      '',
      'web Request/Response path, HTTP with sessions `echo` c=64: server CPU per call',
      label('keelDeno'),
      `≤ 2× ${label('keel')}`,
      '2.10× (2.00×–2.20×)',
      '**missed**',
      '',
    ]);
    expect(markdown).toContain(
      `- web Request/Response path, HTTP with sessions \`echo\` c=64: server CPU per call, ${label('keelDeno')}: 2.10× of ${label('keel')} against ≤ 2× (5 % over).`,
    );
  });
});
