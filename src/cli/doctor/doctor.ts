/**
 * `keel doctor` (issue 29): run the lifecycle checks against one server, stdio or Streamable
 * HTTP, and build the report. Every check is bounded; one that throws is a failure with its
 * message, never the end of the run.
 */
import { HTTP_CHECKS } from './http-checks.js';
import type { HttpTarget } from './http-peer.js';
import { probeHttp } from './http-probe.js';
import { MODERN_CHECKS } from './modern-checks.js';
import { summarize, type CheckResult, type DoctorReport } from './report.js';
import { probeStdio, STDIO_CHECKS, type StdioTarget } from './stdio-checks.js';
import type { ToolHints, ToolPicks } from './tool-picker.js';

/**
 * @example
 * const report = await runDoctor({ command: ['node', 'server.js'], timeoutMs: 10_000, readOnly: false, hints: {} });
 */
export interface DoctorOptions {
  command?: readonly string[];
  url?: string;
  headers?: Record<string, string>;
  timeoutMs: number;
  readOnly: boolean;
  hints: ToolHints;
  args?: Record<string, unknown>;
  /** Check ids or prefixes (`stdio.`) to run; all when empty. */
  only?: readonly string[];
  skip?: readonly string[];
  /** Told before the checks start (the tools doctor will call). */
  notice?: (text: string) => void;
}

const VERSION = '0.1.0';

function selected(id: string, options: DoctorOptions): boolean {
  const match = (pattern: string) => id === pattern || (pattern.endsWith('.') && id.startsWith(pattern));
  if (options.only && options.only.length > 0 && !options.only.some(match)) return false;
  return !(options.skip ?? []).some(match);
}

function describePicks(picks: ToolPicks, readOnly: boolean): string {
  if (readOnly) return 'keel doctor: --read-only: no tool will be called (protocol checks only).';
  const names = [
    ...new Set([picks.fast, picks.slow, picks.asking].filter((t) => t !== undefined).map((t) => t.name)),
  ];
  return names.length === 0
    ? 'keel doctor: no tool to call was found; the checks that need one will say so.'
    : `keel doctor: will call these tools of the server: ${names.join(', ')} (stop now with Ctrl+C, or use --read-only).`;
}

async function runChecks<T>(
  checks: {
    id: string;
    title: string;
    why: string;
    ref: string;
    run(target: T): Promise<{ status: CheckResult['status']; observed: string }>;
  }[],
  target: T,
  options: DoctorOptions,
): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  for (const check of checks) {
    if (!selected(check.id, options)) continue;
    const started = Date.now();
    // A check has its own bounds; this one is for a check that hangs anyway.
    const limit = options.timeoutMs * 3 + 5_000;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const outcome = await Promise.race([
      check.run(target).catch((error: unknown) => ({
        status: 'fail' as const,
        observed: `the check could not complete: ${reason(error)}`,
      })),
      new Promise<{ status: 'fail'; observed: string }>((resolve) => {
        timer = setTimeout(
          () => resolve({ status: 'fail', observed: `no outcome within ${limit} ms` }),
          limit,
        );
      }),
    ]);
    clearTimeout(timer);
    results.push({
      id: check.id,
      title: check.title,
      why: check.why,
      ref: check.ref,
      ...outcome,
      ms: Date.now() - started,
    });
  }
  return results;
}

/** Why a check could not complete, in words: fetch's "fetch failed" names its cause. */
function reason(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  if (error.message === 'fetch failed' && cause)
    return `the server stopped answering (${cause.code ?? cause.message ?? 'connection failed'}): did it crash?`;
  return error.message;
}

/** What both transports' first contact gives. */
interface Probe {
  fatal?: string;
  init?: Record<string, unknown> | undefined;
  picks: ToolPicks;
  modern?: boolean;
}

/**
 * The report around `run`: the target as the handshake described it, or the fatal message; the
 * tool notice; the checks and their counts.
 */
async function reportOn(
  target: DoctorReport['target'],
  probe: Probe,
  options: DoctorOptions,
  run: () => Promise<CheckResult[]>,
): Promise<DoctorReport> {
  const report: DoctorReport = {
    doctor: 1,
    keel: VERSION,
    target,
    checks: [],
    summary: { pass: 0, fail: 0, na: 0 },
  };
  if (probe.fatal) return { ...report, fatal: { message: probe.fatal } };
  const info = probe.init?.serverInfo as { name?: string; version?: string } | undefined;
  target.server = { name: String(info?.name ?? '?'), version: String(info?.version ?? '?') };
  target.protocolVersion = String(probe.init?.protocolVersion);
  target.eras = [target.protocolVersion, ...(probe.modern ? ['2026-07-28'] : [])];
  options.notice?.(describePicks(probe.picks, options.readOnly));
  report.checks = await run();
  report.summary = summarize(report.checks);
  return report;
}

/** Run doctor; resolves with the report (exit code: 1 when `fatal` or any check failed). */
export async function runDoctor(options: DoctorOptions): Promise<DoctorReport> {
  const { timeoutMs, readOnly, args } = options;
  if (options.command) {
    const command = options.command;
    const probe = await probeStdio(command, timeoutMs, options.hints);
    const target: StdioTarget = { command, timeoutMs, readOnly, picks: probe.picks, args };
    return reportOn({ kind: 'stdio', command: [...command] }, probe, options, () =>
      runChecks(STDIO_CHECKS, target, options),
    );
  }
  const url = options.url!;
  const headers = options.headers ?? {};
  const probe = await probeHttp(url, headers, timeoutMs, options.hints);
  const target: HttpTarget = {
    url,
    headers,
    timeoutMs,
    readOnly,
    picks: probe.picks,
    args,
    stateful: probe.stateful,
    modern: probe.modern,
  };
  return reportOn({ kind: 'http', url }, probe, options, () =>
    runChecks([...HTTP_CHECKS, ...MODERN_CHECKS], target, options),
  );
}
