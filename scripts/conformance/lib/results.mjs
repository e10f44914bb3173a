// Reads the suite's `-o` output (one checks.json per scenario) and judges each scenario.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

// The suite names each result folder `<prefix><scenario>-<ISO timestamp with ':' and '.' as '-'>`.
const TIMESTAMP_SUFFIX = /-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$/;

/**
 * Scenario name from a result folder path relative to the `-o` dir.
 *
 * @example
 * scenarioFromFolder('server-ping-2026-01-02T03-04-05-678Z'); // 'ping'
 * scenarioFromFolder('auth/metadata-default-2026-01-02T03-04-05-678Z'); // 'auth/metadata-default'
 */
export function scenarioFromFolder(folder) {
  const name = folder.split(sep).join('/').replace(TIMESTAMP_SUFFIX, '');
  return name.startsWith('server-') ? name.slice('server-'.length) : name;
}

function findCheckFiles(dir) {
  if (!existsSync(dir)) return [];
  const found = [];
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) found.push(...findCheckFiles(path));
    else if (entry === 'checks.json') found.push(path);
  }
  return found;
}

/**
 * Counts one scenario's checks by status and keeps the failing and warning ones for the report.
 *
 * @example
 * summarizeChecks('ping', [{ id: 'ping', status: 'SUCCESS' }]); // { name: 'ping', success: 1, failure: 0, ... }
 */
export function summarizeChecks(name, checks) {
  const summary = {
    name,
    success: 0,
    failure: 0,
    warning: 0,
    skipped: 0,
    failures: [],
    warnings: [],
    skips: [],
  };
  for (const check of Array.isArray(checks) ? checks : []) {
    const brief = {
      id: check.id,
      description: check.description,
      errorMessage: check.errorMessage,
      details: check.details,
    };
    if (check.status === 'SUCCESS') summary.success += 1;
    else if (check.status === 'FAILURE') {
      summary.failure += 1;
      summary.failures.push(brief);
    } else if (check.status === 'WARNING') {
      summary.warning += 1;
      summary.warnings.push(brief);
    } else if (check.status === 'SKIPPED') {
      summary.skipped += 1;
      summary.skips.push(brief);
    }
  }
  return summary;
}

/**
 * Every scenario result under an `-o` directory, keyed by scenario name.
 *
 * @example
 * const results = readResults('.conformance/results/server-1');
 */
export function readResults(outputDir) {
  const results = new Map();
  for (const file of findCheckFiles(outputDir)) {
    const folder = relative(outputDir, join(file, '..'));
    const name = scenarioFromFolder(folder);
    let checks;
    try {
      checks = JSON.parse(readFileSync(file, 'utf8'));
    } catch (error) {
      checks = [
        { id: 'runner-parse', status: 'FAILURE', errorMessage: `unreadable ${file}: ${error.message}` },
      ];
    }
    results.set(name, summarizeChecks(name, checks));
  }
  return results;
}

/**
 * Parses `conformance list` output ("  - name [versions]") into scenario names.
 *
 * @example
 * parseScenarioList('Server scenarios:\n  - ping [2025-06-18]\n'); // ['ping']
 */
export function parseScenarioList(text) {
  return [...text.matchAll(/^\s+- (\S+)/gm)].map((match) => match[1]);
}

/**
 * The scenarios `conformance list` tags `[extension]` (outside the spec timeline: the suite runs
 * them only when named, with `--force`).
 *
 * @example
 * parseExtensionScenarios('  - ping [2025-06-18]\n  - sep-2640-skills-directory [extension]\n'); // ['sep-2640-skills-directory']
 */
export function parseExtensionScenarios(text) {
  return [...text.matchAll(/^\s+- (\S+) \[extension\]/gm)].map((match) => match[1]);
}

/**
 * Judges a run. A scenario fails on any FAILURE, on any WARNING unless `allowWarnings`, when it
 * emitted no SUCCESS check, or when it wrote no results. A scenario in `expected` must fail (else it
 * is a stale entry, as in the suite's own baseline mode). `suiteExit` is the suite's exit code:
 * non-zero with nothing else wrong still fails the run (the suite saw something, e.g. a crash, that
 * the result files do not show).
 *
 * @example
 * const verdict = judge({ results, scenarios: ['ping'], expected: new Set(), allowWarnings: false, suiteExit: 0 });
 * verdict.ok; // true when every scenario passed
 */
export function judge({ results, scenarios, expected, allowWarnings, suiteExit, noSkips = false }) {
  const names = [...new Set([...scenarios, ...results.keys()])];
  const rows = [];
  const problems = [];
  for (const name of names) {
    const result = results.get(name);
    const listed = expected.has(name);
    if (!result) {
      rows.push({ name, success: 0, failure: 0, warning: 0, status: listed ? 'expected' : 'MISSING' });
      if (!listed) problems.push(`${name}: wrote no results (crashed, timed out or was skipped)`);
      continue;
    }
    let status = result.warning > 0 ? 'pass (warn)' : 'pass';
    if (result.warning > 0 && !allowWarnings) status = 'WARN';
    // tier-check's rule: a scenario with no SUCCESS did not pass, although the suite prints ✓ for it
    // (a client that crashes before its first request leaves an empty checks.json, for instance).
    if (result.success === 0) status = 'EMPTY';
    // `noSkips`: a skipped check verified nothing (extension lanes: every check must run).
    if (noSkips && result.skipped > 0) status = 'SKIP';
    if (result.failure > 0) status = 'FAIL';
    const failing = status === 'FAIL' || status === 'WARN' || status === 'EMPTY' || status === 'SKIP';
    if (listed) status = failing ? 'expected' : 'STALE';
    if (status === 'FAIL' || status === 'WARN') {
      problems.push(`${name}: ${result.failure} failed, ${result.warning} warnings`);
    }
    if (status === 'EMPTY') {
      problems.push(
        `${name}: no SUCCESS check at all (skipped, or the program under test crashed: read its log)`,
      );
    }
    if (status === 'SKIP') {
      problems.push(
        `${name}: ${result.skipped} checks skipped (${result.skips.map((check) => check.id).join(', ')})`,
      );
    }
    if (status === 'STALE') {
      problems.push(`${name}: listed as an expected failure but passed: remove it from the list`);
    }
    rows.push({ ...result, status });
  }
  const explainedByWarnings = allowWarnings && rows.some((row) => row.warning > 0);
  if (suiteExit !== 0 && problems.length === 0 && !explainedByWarnings) {
    problems.push(`the suite exited with ${suiteExit} although every result file passed: see its log`);
  }
  const sum = (selected) =>
    selected.reduce(
      (total, row) => ({
        success: total.success + row.success,
        failure: total.failure + row.failure,
        warning: total.warning + row.warning,
        skipped: total.skipped + (row.skipped ?? 0),
      }),
      { success: 0, failure: 0, warning: 0, skipped: 0 },
    );
  const expectedRows = rows.filter((row) => row.status === 'expected');
  return {
    ok: problems.length === 0,
    rows,
    problems,
    totals: sum(rows),
    // Checks of the scenarios the baseline does not excuse: the numbers that must be clean.
    judgedTotals: sum(rows.filter((row) => row.status !== 'expected')),
    expectedScenarios: expectedRows.length,
  };
}
