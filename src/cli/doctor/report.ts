/**
 * `keel doctor`'s report (issue 29): one entry per check, printed for people, as JSON (format
 * version 1, docs/doctor.md) or as JUnit XML for CI.
 */

/** pass, fail, or not applicable (the server lacks what the check needs). */
export type CheckStatus = 'pass' | 'fail' | 'n/a';

/**
 * One check's outcome.
 *
 * @example
 * const result: CheckResult = { id: 'stdio.eof-idle', title: 'stdin EOF while idle', status: 'pass', observed: 'exited 0 after 12 ms', why: '...', ref: '...', ms: 15 };
 */
export interface CheckResult {
  id: string;
  title: string;
  status: CheckStatus;
  /** What happened, in a sentence or two. */
  observed: string;
  /** Why it matters to someone using the server. */
  why: string;
  /** The spec text or lifecycle guarantee the check rests on. */
  ref: string;
  ms: number;
}

/**
 * The whole report (`--json` prints it as is).
 *
 * @example
 * if (report.summary.fail > 0 || report.fatal) process.exitCode = 1;
 */
export interface DoctorReport {
  doctor: 1;
  keel: string;
  target: {
    kind: 'stdio' | 'http';
    command?: string[];
    url?: string;
    server?: { name: string; version: string };
    protocolVersion?: string;
    eras?: string[];
  };
  fatal?: { message: string };
  checks: CheckResult[];
  summary: { pass: number; fail: number; na: number };
}

/** Counts of a list of results. */
export function summarize(checks: readonly CheckResult[]): DoctorReport['summary'] {
  return {
    pass: checks.filter((c) => c.status === 'pass').length,
    fail: checks.filter((c) => c.status === 'fail').length,
    na: checks.filter((c) => c.status === 'n/a').length,
  };
}

const MARK: Record<CheckStatus, string> = { pass: 'PASS', fail: 'FAIL', 'n/a': 'n/a ' };

/** The report for a terminal. */
export function renderText(report: DoctorReport): string {
  const lines: string[] = [];
  const t = report.target;
  const what = t.kind === 'stdio' ? (t.command ?? []).join(' ') : (t.url ?? '');
  const server = t.server ? ` — ${t.server.name} ${t.server.version}` : '';
  lines.push(`keel doctor: ${what}${server}${t.protocolVersion ? ` (${t.protocolVersion})` : ''}`);
  if (report.fatal) lines.push('', `FATAL ${report.fatal.message}`);
  for (const check of report.checks) {
    lines.push('', `${MARK[check.status]} ${check.id}  ${check.title}`);
    lines.push(`     observed: ${check.observed}`);
    if (check.status === 'fail') {
      lines.push(`     why: ${check.why}`);
      lines.push(`     see: ${check.ref}`);
    }
  }
  const s = report.summary;
  lines.push('', `${s.pass} passed, ${s.fail} failed, ${s.na} not applicable`);
  return `${lines.join('\n')}\n`;
}

const xml = (text: string): string =>
  text.replace(
    /[<>&"']/g,
    (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!,
  );

/** The report as JUnit XML (one test case per check; n/a is skipped). */
export function renderJunit(report: DoctorReport): string {
  const cases = report.checks.map((check) => {
    const head = `  <testcase classname="keel.doctor.${xml(check.id.split('.')[0]!)}" name="${xml(check.id)}" time="${(check.ms / 1000).toFixed(3)}">`;
    if (check.status === 'pass') return `${head}</testcase>`;
    if (check.status === 'n/a') return `${head}<skipped message="${xml(check.observed)}"/></testcase>`;
    return `${head}<failure message="${xml(check.observed)}">${xml(`${check.why}\n${check.ref}`)}</failure></testcase>`;
  });
  if (report.fatal)
    cases.unshift(
      `  <testcase classname="keel.doctor" name="start"><error message="${xml(report.fatal.message)}"/></testcase>`,
    );
  const s = report.summary;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuite name="keel doctor" tests="${cases.length}" failures="${s.fail}" errors="${report.fatal ? 1 : 0}" skipped="${s.na}">`,
    ...cases,
    '</testsuite>',
    '',
  ].join('\n');
}
