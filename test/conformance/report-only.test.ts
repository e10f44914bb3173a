// The report-only 2026-07-28 lanes: their counts, their record, and that they never decide the
// runner's exit code.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  loadRunnerModule,
  type ReportModule,
  type ReportOnlyModule,
  type ResultsModule,
} from './runner-modules.js';

let results: ResultsModule;
let report: ReportModule;
let reportOnly: ReportOnlyModule;
let dir: string;

beforeAll(async () => {
  results = await loadRunnerModule<ResultsModule>('lib/results.mjs');
  report = await loadRunnerModule<ReportModule>('lib/report.mjs');
  reportOnly = await loadRunnerModule<ReportOnlyModule>('lib/report-only.mjs');
  dir = mkdtempSync(join(tmpdir(), 'keel-conformance-report-only-'));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const check = (id: string, status: string) => ({ id, status });
const checks = (success: number, failure: number, warning = 0, info = 0) => [
  ...Array.from({ length: success }, (_, i) => check(`ok-${i}`, 'SUCCESS')),
  ...Array.from({ length: failure }, (_, i) => check(`bad-${i}`, 'FAILURE')),
  ...Array.from({ length: warning }, (_, i) => check(`warn-${i}`, 'WARNING')),
  ...Array.from({ length: info }, (_, i) => check(`info-${i}`, 'INFO')),
];

/** A judged run (as the lanes judge it: no baseline) from `[scenario, checks]` pairs. */
function verdictOf(entries: [string, ReturnType<typeof checks>][], missing: string[] = []) {
  const map = new Map(entries.map(([name, list]) => [name, results.summarizeChecks(name, list)]));
  return results.judge({
    results: map,
    scenarios: [...entries.map(([name]) => name), ...missing],
    expected: new Set(),
    allowWarnings: false,
    suiteExit: 1,
  });
}

describe('report-only counts', () => {
  it('counts SUCCESS out of SUCCESS + FAILURE, warnings apart, and passing scenarios by the judge', () => {
    const verdict = verdictOf(
      [
        ['tools-list', checks(1, 1)],
        ['caching', checks(1, 6)],
        ['validate-input', checks(3, 0, 0, 2)],
        ['ignore-extra-params', checks(1, 0, 1)],
        ['only-info', checks(0, 0, 0, 1)],
      ],
      ['never-ran'],
    );
    const counts = reportOnly.reportOnlyCounts(verdict);
    expect(counts.checks).toEqual({ passed: 6, failed: 7, warnings: 1, total: 13 });
    expect(counts.scenarios).toEqual({ passed: 1, total: 6 });
    expect(counts.passing).toEqual(['validate-input']);
    expect(counts.failing).toEqual([
      'tools-list',
      'caching',
      'ignore-extra-params',
      'only-info',
      'never-ran',
    ]);
    expect(counts.withoutOAuth).toBeUndefined();
    expect(reportOnly.formatReportOnly(counts)).toBe(
      'report-only: 6 of 13 checks pass (+1 warnings), 1 of 6 scenarios pass (does not fail the run)',
    );
  });

  it('also counts without the OAuth scenarios when a run has any', () => {
    const verdict = verdictOf([
      ['tools_call', checks(1, 1)],
      ['json-schema-ref-no-deref', checks(1, 0)],
      ['auth/metadata-default', checks(0, 7)],
      ['auth/authorization-server-migration', checks(2, 1)],
    ]);
    const counts = reportOnly.reportOnlyCounts(verdict);
    expect(counts.checks).toEqual({ passed: 4, failed: 9, warnings: 0, total: 13 });
    expect(counts.withoutOAuth?.checks).toEqual({ passed: 2, failed: 1, warnings: 0, total: 3 });
    expect(counts.withoutOAuth?.scenarios).toEqual({ passed: 1, total: 2 });
    expect(counts.withoutOAuth?.failing).toEqual(['tools_call']);
    expect(reportOnly.formatReportOnly(counts)).toBe(
      'report-only: 4 of 13 checks pass (+0 warnings), 1 of 4 scenarios pass; without auth/*: ' +
        '2 of 3 checks pass (+0 warnings), 1 of 2 scenarios pass (does not fail the run)',
    );
  });

  it('ends the printed report with the report-only line instead of result: FAIL', () => {
    const verdict = verdictOf([['tools-list', checks(1, 1)]]);
    const line = reportOnly.formatReportOnly(reportOnly.reportOnlyCounts(verdict));
    const text = report.formatVerdict('modern-server', verdict, { resultLine: line });
    expect(text.trimEnd().split('\n').at(-1)).toBe(line);
    expect(text).not.toContain('result: FAIL');
    expect(report.formatVerdict('server', verdict).trimEnd().endsWith('result: FAIL')).toBe(true);
  });

  it('writes report-only.json, creating the folder when the suite wrote none', () => {
    const verdict = verdictOf([
      ['tools-list', checks(1, 1)],
      ['caching', checks(2, 0)],
    ]);
    const counts = reportOnly.reportOnlyCounts(verdict);
    const outputDir = join(dir, 'not-yet', 'modern-server-run1');
    const file = reportOnly.writeReportOnly(outputDir, {
      lane: 'modern-server',
      suite: '0.2.0-alpha.12',
      args: ['server', '--suite', 'all', '--spec-version', '2026-07-28'],
      durationMs: 1234,
      counts,
    });
    expect(file).toBe(join(outputDir, 'report-only.json'));
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({
      lane: 'modern-server',
      reportOnly: true,
      suite: '0.2.0-alpha.12',
      args: ['server', '--suite', 'all', '--spec-version', '2026-07-28'],
      durationMs: 1234,
      checks: { passed: 3, failed: 1, warnings: 0, total: 4 },
      scenarios: { passed: 1, total: 2 },
      passing: ['caching'],
      failing: ['tools-list'],
    });
    // The record sits beside the suite's folders without being read as a scenario.
    expect(results.readResults(outputDir).size).toBe(0);
  });
});

describe('exit code with report-only lanes', () => {
  it('ignores report-only lanes, failed or errored, and still fails on a judged lane', () => {
    const judgedPass = { lane: 'server', ok: true };
    const modernFail = { lane: 'modern-server', ok: false, reportOnly: true };
    const modernError = { lane: 'modern-client', ok: false, reportOnly: true };
    expect(reportOnly.tallyOutcomes([judgedPass, modernFail, modernError])).toEqual({
      line: 'lanes: 1 passed, 0 failed, 2 report-only',
      exitCode: 0,
    });
    expect(reportOnly.tallyOutcomes([modernFail, modernError])).toEqual({
      line: 'lanes: 0 passed, 0 failed, 2 report-only',
      exitCode: 0,
    });
    expect(reportOnly.tallyOutcomes([{ lane: 'next', ok: false }, modernFail])).toEqual({
      line: 'lanes: 0 passed, 1 failed, 1 report-only',
      exitCode: 1,
    });
    // Without report-only lanes the last line is the one the legacy lanes always printed.
    expect(reportOnly.tallyOutcomes([judgedPass, { lane: 'smoke', ok: true }])).toEqual({
      line: 'lanes: 2 passed, 0 failed',
      exitCode: 0,
    });
  });
});
