import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  loadRunnerModule,
  repoRoot,
  type BaselineModule,
  type NetnsModule,
  type OptionsModule,
  type ReportModule,
  type ResultsModule,
  type SmokeLaneModule,
} from './runner-modules.js';

let results: ResultsModule;
let options: OptionsModule;
let baseline: BaselineModule;
let report: ReportModule;
let netns: NetnsModule;
let smoke: SmokeLaneModule;

beforeAll(async () => {
  results = await loadRunnerModule<ResultsModule>('lib/results.mjs');
  options = await loadRunnerModule<OptionsModule>('lib/options.mjs');
  baseline = await loadRunnerModule<BaselineModule>('lib/baseline.mjs');
  report = await loadRunnerModule<ReportModule>('lib/report.mjs');
  netns = await loadRunnerModule<NetnsModule>('lib/netns.mjs');
  smoke = await loadRunnerModule<SmokeLaneModule>('lanes/smoke-lane.mjs');
});

const check = (id: string, status: string, errorMessage?: string) => ({ id, status, errorMessage });

describe('result folders and checks.json', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('derives scenario names from the folders the suite writes', () => {
    expect(results.scenarioFromFolder('server-ping-2026-01-02T03-04-05-678Z')).toBe('ping');
    expect(results.scenarioFromFolder('server-server-initialize-2026-01-02T03-04-05-678Z')).toBe(
      'server-initialize',
    );
    expect(results.scenarioFromFolder('sse-retry-2026-01-02T03-04-05-678Z')).toBe('sse-retry');
    expect(results.scenarioFromFolder(join('auth', 'metadata-default-2026-01-02T03-04-05-678Z'))).toBe(
      'auth/metadata-default',
    );
  });

  it('counts SUCCESS, FAILURE and WARNING and ignores INFO and SKIPPED', () => {
    const summary = results.summarizeChecks('x', [
      check('a', 'SUCCESS'),
      check('b', 'FAILURE', 'boom'),
      check('c', 'WARNING', 'hmm'),
      check('d', 'INFO'),
      check('e', 'SKIPPED'),
    ]);
    expect(summary).toMatchObject({ success: 1, failure: 1, warning: 1, skipped: 1 });
    expect(summary.skips.map((skip) => skip.id)).toEqual(['e']);
    expect(summary.failures).toEqual([
      { id: 'b', errorMessage: 'boom', description: undefined, details: undefined },
    ]);
    expect(summary.warnings.map((w) => w.id)).toEqual(['c']);
  });

  it('reads nested result folders, and reports an unreadable checks.json as a failure', () => {
    const dir = mkdtempSync(join(tmpdir(), 'keel-conformance-'));
    dirs.push(dir);
    const write = (folder: string, content: string) => {
      mkdirSync(join(dir, folder), { recursive: true });
      writeFileSync(join(dir, folder, 'checks.json'), content);
    };
    write('server-ping-2026-01-02T03-04-05-678Z', JSON.stringify([check('ping', 'SUCCESS')]));
    write('auth/basic-cimd-2026-01-02T03-04-05-678Z', JSON.stringify([check('x', 'FAILURE', 'no oauth')]));
    write('server-broken-2026-01-02T03-04-05-678Z', '{not json');
    const read = results.readResults(dir);
    expect([...read.keys()].sort()).toEqual(['auth/basic-cimd', 'broken', 'ping']);
    expect(read.get('ping')?.success).toBe(1);
    expect(read.get('auth/basic-cimd')?.failure).toBe(1);
    expect(read.get('broken')?.failure).toBe(1);
    expect(results.readResults(join(dir, 'does-not-exist')).size).toBe(0);
  });

  it('parses the scenario list printed by `conformance list`', () => {
    const text =
      'Server scenarios (test against a server):\n  - ping [2025-06-18,2025-11-25]\n  - auth/x [draft]\n';
    expect(results.parseScenarioList(text)).toEqual(['ping', 'auth/x']);
  });
});

describe('judging a run', () => {
  const summary = (name: string, checks: ReturnType<typeof check>[]) => results.summarizeChecks(name, checks);
  const resultMap = (...entries: ReturnType<typeof summary>[]) => new Map(entries.map((s) => [s.name, s]));
  const base = { expected: new Set<string>(), allowWarnings: false, suiteExit: 0 };

  it('passes when every scenario passed', () => {
    const verdict = results.judge({
      ...base,
      results: resultMap(summary('ping', [check('ping', 'SUCCESS')])),
      scenarios: ['ping'],
    });
    expect(verdict.ok).toBe(true);
    expect(verdict.totals).toEqual({ success: 1, failure: 0, warning: 0, skipped: 0 });
  });

  it('issue 27: with noSkips a SKIPPED check fails its scenario (an extension lane must verify everything)', () => {
    const skipping = resultMap(summary('skills', [check('a', 'SUCCESS'), check('b', 'SKIPPED')]));
    const strict = results.judge({ ...base, results: skipping, scenarios: ['skills'], noSkips: true });
    expect(strict.ok).toBe(false);
    expect(strict.rows[0]?.status).toBe('SKIP');
    expect(strict.problems).toEqual(['skills: 1 checks skipped (b)']);
    expect(results.judge({ ...base, results: skipping, scenarios: ['skills'] }).ok).toBe(true);
  });

  it('issue 27: lists only the scenarios `conformance list` tags [extension]', () => {
    const text =
      '  - ping [2025-06-18]\n  - sep-2640-skills-directory [extension]\n  - auth/dpop [extension]\n';
    expect(results.parseExtensionScenarios(text)).toEqual(['sep-2640-skills-directory', 'auth/dpop']);
  });

  it('fails on a FAILURE and names the scenario', () => {
    const verdict = results.judge({
      ...base,
      results: resultMap(summary('ping', [check('ping', 'FAILURE', 'no pong')])),
      scenarios: ['ping'],
      suiteExit: 1,
    });
    expect(verdict.ok).toBe(false);
    expect(verdict.rows[0]?.status).toBe('FAIL');
    expect(verdict.problems).toEqual(['ping: 1 failed, 0 warnings']);
  });

  it('fails on a WARNING unless warnings are allowed', () => {
    const input = {
      ...base,
      results: resultMap(summary('poll', [check('a', 'SUCCESS'), check('b', 'WARNING', 'no priming event')])),
      scenarios: ['poll'],
    };
    expect(results.judge(input).ok).toBe(false);
    expect(results.judge(input).rows[0]?.status).toBe('WARN');
    const relaxed = results.judge({ ...input, allowWarnings: true, suiteExit: 1 });
    expect(relaxed.ok).toBe(true);
    expect(relaxed.rows[0]?.status).toBe('pass (warn)');
  });

  it('fails a scenario that emitted no SUCCESS check, which the suite itself prints as passed', () => {
    const verdict = results.judge({
      ...base,
      results: resultMap(summary('initialize', [check('x', 'INFO')])),
      scenarios: ['initialize'],
    });
    expect(verdict.ok).toBe(false);
    expect(verdict.rows[0]?.status).toBe('EMPTY');
    expect(verdict.problems[0]).toContain('no SUCCESS check');
  });

  it('fails when a scenario wrote no results', () => {
    const verdict = results.judge({ ...base, results: new Map(), scenarios: ['ping'] });
    expect(verdict.ok).toBe(false);
    expect(verdict.rows[0]?.status).toBe('MISSING');
  });

  it('excuses listed failures and fails listed scenarios that pass (stale entries)', () => {
    const verdict = results.judge({
      ...base,
      expected: new Set(['auth/a', 'auth/b', 'auth/c']),
      results: resultMap(
        summary('auth/a', [check('x', 'FAILURE')]),
        summary('auth/b', [check('y', 'SUCCESS')]),
      ),
      scenarios: ['auth/a', 'auth/b', 'auth/c'],
    });
    expect(verdict.rows.map((row) => row.status)).toEqual(['expected', 'STALE', 'expected']);
    expect(verdict.ok).toBe(false);
    expect(verdict.problems).toHaveLength(1);
    expect(verdict.problems[0]).toContain('auth/b');
    expect(verdict.expectedScenarios).toBe(2);
    expect(verdict.judgedTotals).toEqual({ success: 1, failure: 0, warning: 0, skipped: 0 });
  });

  it('fails when the suite exits non-zero although every result passed', () => {
    const verdict = results.judge({
      ...base,
      results: resultMap(summary('ping', [check('ping', 'SUCCESS')])),
      scenarios: ['ping'],
      suiteExit: 'timeout',
    });
    expect(verdict.ok).toBe(false);
    expect(verdict.problems[0]).toContain('exited with timeout');
  });

  it('prints a table, the failing checks with their messages and the result', () => {
    const verdict = results.judge({
      ...base,
      results: resultMap(summary('ping', [check('ping', 'FAILURE', 'no pong')])),
      scenarios: ['ping'],
      suiteExit: 1,
    });
    const text = report.formatVerdict('server', verdict);
    expect(text).toContain('ping › ping: no pong');
    expect(text).toMatch(/checks: 0 passed, 1 failed, 0 warnings \(1 scenarios\)/);
    expect(text.trimEnd().endsWith('result: FAIL')).toBe(true);
    expect(report.formatTable(['a', 'bb'], [['xyz', 1]])).toBe('a    bb\n---  --\nxyz  1');
    expect(report.lastLines('a\nb\nc\n', 2)).toBe('b\nc');
  });
});

describe('command line', () => {
  it('defaults to every judged lane, and accepts repeated or comma-separated lanes', () => {
    const judged = [
      'server',
      'client',
      'next',
      'modern-server',
      'modern-client',
      'tasks',
      'ext-server',
      'ext-client',
      'smoke',
    ];
    expect(options.parseOptions([]).lanes).toEqual(judged);
    expect(options.parseOptions(['--lane', 'all']).lanes).toEqual(judged);
    expect(options.parseOptions(['--lane', 'smoke,server']).lanes).toEqual(['server', 'smoke']);
    expect(options.parseOptions(['--lane', 'client', '--lane', 'next']).lanes).toEqual(['client', 'next']);
    expect(options.parseOptions(['--lane', 'modern-client,modern-server']).lanes).toEqual([
      'modern-server',
      'modern-client',
    ]);
    expect(options.parseOptions(['--lane', 'modern-client', '--scenario', 'tools_call']).scenario).toBe(
      'tools_call',
    );
    expect(() => options.parseOptions(['--lane', 'modern'])).toThrow(/unknown lane modern /);
  });

  it('has no report-only lane today: every lane is judged', () => {
    expect(options.REPORT_ONLY_LANES).toEqual([]);
  });

  it('reads the flags', () => {
    const parsed = options.parseOptions([
      '--lane',
      'server',
      '--repeat',
      '3',
      '--allow-warnings',
      '--no-build',
      '--no-netns',
    ]);
    expect(parsed).toMatchObject({ repeat: 3, allowWarnings: true, build: false, netns: false });
    expect(parsed.serverCommand).toBe('npm run --silent fixture:http');
    expect(parsed.clientCommand).toBe('npm run --silent fixture:client');
  });

  it('rejects unknown lanes, bad repeat counts, unknown flags and --scenario across lanes', () => {
    expect(() => options.parseOptions(['--lane', 'bogus'])).toThrow(options.UsageError);
    expect(() => options.parseOptions(['--repeat', '0'])).toThrow(/repeat/);
    expect(() => options.parseOptions(['--repeat', 'x'])).toThrow(/repeat/);
    expect(() => options.parseOptions(['--bogus'])).toThrow(options.UsageError);
    expect(() => options.parseOptions(['--scenario', 'ping'])).toThrow(/exactly one/);
    expect(options.parseOptions(['--lane', 'server', '--scenario', 'ping']).scenario).toBe('ping');
  });
});

describe('expected-failures baseline', () => {
  it('accepts the suite format and rejects anything else', () => {
    const parsed = baseline.toBaseline({ server: [], client: ['auth/basic-cimd'] });
    expect([...parsed.client]).toEqual(['auth/basic-cimd']);
    expect(parsed.server.size).toBe(0);
    expect(baseline.toBaseline(null).client.size).toBe(0);
    expect(() => baseline.toBaseline({ clients: [] })).toThrow(/unknown keys/);
    expect(() => baseline.toBaseline({ client: 'auth/x' })).toThrow(/list of scenario names/);
    expect(() => baseline.toBaseline({ client: [{ name: 'auth/x' }] })).toThrow(/list of scenario names/);
  });

  it.each(['expected-failures.yml', 'expected-failures-2026-07-28.yml'])(
    '%s lists only OAuth scenarios (or none), each with a reason, and nothing for the server',
    (file) => {
      const text = readFileSync(join(repoRoot, 'conformance', file), 'utf8');
      expect(text).toMatch(/^server: \[\]$/m);
      const entries = [...text.matchAll(/^\s+- (\S+)(.*)$/gm)];
      // Issue 11 empties both lists: then the client list is written out as empty, not left out.
      if (entries.length === 0) expect(text).toMatch(/^client: \[\]$/m);
      for (const [, name, rest] of entries) {
        expect(name).toMatch(/^auth\//);
        expect(rest).toMatch(/^ # \S/);
      }
    },
  );
});

describe('process helpers', () => {
  it('wraps a command for a loopback-only namespace without re-quoting its arguments', () => {
    const [command, args] = netns.wrapInNamespace(['-n'], '/opt/node', [
      'suite.js',
      '--command',
      'npm run x',
    ]);
    expect(command).toBe('unshare');
    expect(args).toEqual([
      '-n',
      'sh',
      '-c',
      'ip link set lo up && exec "$@"',
      'sh',
      '/opt/node',
      'suite.js',
      '--command',
      'npm run x',
    ]);
  });

  it('makes repository-relative stdio fixture paths absolute', () => {
    expect(smoke.stdioArgv(repoRoot, 'node package.json --flag')).toEqual([
      'node',
      join(repoRoot, 'package.json'),
      '--flag',
    ]);
  });
});
