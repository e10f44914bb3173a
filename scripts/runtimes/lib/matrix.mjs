// The pass/fail matrix the runner prints: one row per runtime, one column per scenario step.
import { STEPS } from './drive.mjs';

/**
 * Renders rows `{ runtime, version, results?: [{ step, ok, detail }], error? }` as a text table,
 * followed by the detail of every failure. `ok` is true only when every step of every row passed
 * or was not applicable (`ok: 'n/a'`).
 *
 * @example
 * const { text, ok } = formatMatrix([{ runtime: 'bun', version: '1.4.5', results }]);
 */
export function formatMatrix(rows) {
  const header = ['runtime', ...STEPS];
  const lines = [header];
  const failures = [];
  for (const row of rows) {
    const cells = [`${row.runtime} ${row.version}`];
    for (const step of STEPS) {
      const result = row.results?.find((item) => item.step === step);
      cells.push(result ? (result.ok === 'n/a' ? 'n/a' : result.ok ? 'pass' : 'FAIL') : 'FAIL');
      if (result && !result.ok) failures.push(`${row.runtime} ${step}: ${result.detail}`);
      if (!result && !row.error) failures.push(`${row.runtime} ${step}: not run`);
    }
    if (row.error) failures.push(`${row.runtime}: ${row.error}`);
    lines.push(cells);
  }
  const widths = header.map((_, column) => Math.max(...lines.map((cells) => cells[column].length)));
  const text = lines.map((cells) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column]))
      .join('  ')
      .trimEnd(),
  );
  return { text: [...text, ...failures.map((line) => `  ${line}`)].join('\n'), ok: failures.length === 0 };
}
