// Plain-text report of a judged run: one table row per scenario, then why each failing check failed.

const MAX_MESSAGE = 300;

function clip(text, max = MAX_MESSAGE) {
  const flat = String(text ?? '')
    .replace(/\s+/g, ' ')
    .trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

/**
 * The last `count` lines of a text.
 *
 * @example
 * lastLines('a\nb\nc', 2); // 'b\nc'
 */
export function lastLines(text, count) {
  return String(text).trimEnd().split('\n').slice(-count).join('\n');
}

/**
 * Formats rows as an aligned text table.
 *
 * @example
 * formatTable(['a', 'b'], [['1', '2']]); // 'a  b\n-  -\n1  2'
 */
export function formatTable(header, rows) {
  const widths = header.map((title, i) =>
    Math.max(title.length, ...rows.map((row) => String(row[i]).length)),
  );
  const line = (cells) =>
    cells
      .map((cell, i) => String(cell).padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

/**
 * The report of one suite run: table, totals, failing/warning checks with their messages, problems,
 * and `result: PASS|FAIL`, or, for a report-only lane, the `resultLine` it passes instead.
 *
 * @example
 * console.log(formatVerdict('server (0.1.16, --suite all)', verdict, { details: true }));
 */
export function formatVerdict(title, verdict, { showExpectedDetails = false, resultLine } = {}) {
  const out = [`\n── ${title} ──`];
  const table = verdict.rows.map((row) => [row.name, row.success, row.failure, row.warning, row.status]);
  out.push(formatTable(['scenario', 'passed', 'failed', 'warnings', 'status'], table));
  const { success, failure, warning } = verdict.judgedTotals;
  const judged = verdict.rows.length - verdict.expectedScenarios;
  out.push(`checks: ${success} passed, ${failure} failed, ${warning} warnings (${judged} scenarios)`);
  if (verdict.expectedScenarios > 0) {
    const excused = verdict.totals;
    out.push(
      `expected failures: ${verdict.expectedScenarios} scenarios, ${excused.success - success} passed, ` +
        `${excused.failure - failure} failed, ${excused.warning - warning} warnings (not judged)`,
    );
  }
  const detailed = verdict.rows.filter(
    (row) =>
      (row.failures?.length || row.warnings?.length) && (row.status !== 'expected' || showExpectedDetails),
  );
  if (detailed.length > 0) out.push('\nfailing and warning checks:');
  for (const row of detailed) {
    for (const check of row.failures) {
      out.push(`  ✗ ${row.name} › ${check.id}: ${clip(check.errorMessage ?? check.description)}`);
      // Messages are often terse ("Tool call failed"); the details usually say what came back.
      if (check.details !== undefined) out.push(`      details: ${clip(JSON.stringify(check.details), 240)}`);
    }
    for (const check of row.warnings)
      out.push(`  ! ${row.name} › ${check.id}: ${clip(check.errorMessage ?? check.description)}`);
  }
  if (verdict.problems.length > 0) {
    out.push('\nproblems:');
    for (const problem of verdict.problems) out.push(`  - ${problem}`);
  }
  out.push(resultLine ?? (verdict.ok ? 'result: PASS' : 'result: FAIL'));
  return out.join('\n');
}
