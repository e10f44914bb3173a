// Typed loader for the conformance runner's plain-JS modules (scripts/conformance/**/*.mjs live outside
// the TypeScript project, so each test states the shape it relies on).
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, resolve } from 'node:path';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface ScenarioSummary {
  name: string;
  success: number;
  failure: number;
  warning: number;
  skipped: number;
  failures: { id: string; errorMessage?: string }[];
  warnings: { id: string; errorMessage?: string }[];
  skips: { id: string; errorMessage?: string }[];
}

export interface Verdict {
  ok: boolean;
  rows: (ScenarioSummary & { status: string })[];
  problems: string[];
  totals: { success: number; failure: number; warning: number; skipped: number };
  judgedTotals: { success: number; failure: number; warning: number; skipped: number };
  expectedScenarios: number;
}

export interface ResultsModule {
  scenarioFromFolder(folder: string): string;
  summarizeChecks(name: string, checks: unknown): ScenarioSummary;
  readResults(outputDir: string): Map<string, ScenarioSummary>;
  parseScenarioList(text: string): string[];
  parseExtensionScenarios(text: string): string[];
  judge(input: {
    results: Map<string, ScenarioSummary>;
    scenarios: string[];
    expected: Set<string>;
    allowWarnings: boolean;
    suiteExit: number | string;
    noSkips?: boolean;
  }): Verdict;
}

export interface OptionsModule {
  parseOptions(argv: string[]): {
    lanes: string[];
    repeat: number;
    scenario?: string;
    allowWarnings: boolean;
    build: boolean;
    netns: boolean;
    serverCommand: string;
    clientCommand: string;
  };
  UsageError: new (message: string) => Error;
  REPORT_ONLY_LANES: readonly string[];
}

export interface BaselineModule {
  toBaseline(document: unknown, source?: string): { server: Set<string>; client: Set<string> };
}

export interface ReportModule {
  formatTable(header: string[], rows: (string | number)[][]): string;
  formatVerdict(title: string, verdict: Verdict, options?: { resultLine?: string }): string;
  lastLines(text: string, count: number): string;
}

export interface ReportOnlyTally {
  checks: { passed: number; failed: number; warnings: number; total: number };
  scenarios: { passed: number; total: number };
  passing: string[];
  failing: string[];
}

export interface ReportOnlyCounts extends ReportOnlyTally {
  withoutOAuth?: ReportOnlyTally;
}

export interface ReportOnlyModule {
  reportOnlyCounts(verdict: Verdict): ReportOnlyCounts;
  formatReportOnly(counts: ReportOnlyCounts): string;
  writeReportOnly(
    outputDir: string,
    record: { lane: string; suite: string; args: string[]; durationMs: number; counts: ReportOnlyCounts },
  ): string;
  tallyOutcomes(outcomes: { lane: string; ok: boolean; reportOnly?: boolean }[]): {
    line: string;
    exitCode: number;
  };
}

export interface NetnsModule {
  wrapInNamespace(flags: string[], command: string, args: string[]): [string, string[]];
}

export interface SmokeLaneModule {
  stdioArgv(root: string, command: string): string[];
}

/** Imports `scripts/conformance/<path>` typed as `T`. */
export async function loadRunnerModule<T>(path: string): Promise<T> {
  return (await import(pathToFileURL(resolve(repoRoot, 'scripts', 'conformance', path)).href)) as T;
}

export interface ChildHandle {
  child: { pid?: number };
  exited: Promise<{ code: number | null; signal: string | null } | undefined>;
  readonly running: boolean;
  readonly tail: string;
}

export interface ChildrenModule {
  spawnTracked(command: string, args: string[], options: { logFile: string }): ChildHandle;
  stopChild(handle: ChildHandle, graceMs?: number): Promise<{ forced: boolean; code: number | null }>;
  groupAlive(pgid: number | undefined): boolean;
  runToCompletion(
    command: string,
    args: string[],
    options: { timeoutMs: number; logFile: string; captureStdout?: boolean },
  ): Promise<{ code: number | null; timedOut: boolean; stdout: string; forced?: boolean }>;
}
