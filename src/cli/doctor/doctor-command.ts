/**
 * `keel doctor -- <command>` / `keel doctor <url>` (issue 29): parse the options, run the checks,
 * print the report (text, `--json`, `--junit <file>`); exit 1 on a failed check or a server that
 * could not be checked at all.
 */
import { writeFileSync } from 'node:fs';
import { UsageError, EXIT } from '../usage.js';
import { runDoctor } from './doctor.js';
import { renderJunit, renderText } from './report.js';

/** The options commander hands over. */
export interface DoctorCliOptions {
  json?: boolean;
  junit?: string;
  only?: string;
  skip?: string;
  readOnly?: boolean;
  tool?: string;
  slowTool?: string;
  samplingTool?: string;
  elicitTool?: string;
  args?: string;
  timeout?: number;
  header?: string[];
  yes?: boolean;
}

const list = (value: string | undefined): string[] =>
  (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/**
 * Run doctor for the CLI; resolves with the exit code.
 *
 * @example
 * process.exitCode = await doctorCommand(undefined, ['node', 'server.js'], { json: true });
 */
export async function doctorCommand(
  url: string | undefined,
  command: string[] | undefined,
  options: DoctorCliOptions,
): Promise<number> {
  if ((url === undefined) === (command === undefined || command.length === 0))
    throw new UsageError('give a URL, or a command after --');
  if (url !== undefined && !/^https?:\/\//.test(url)) throw new UsageError(`not an http(s) URL: ${url}`);
  let args: Record<string, unknown> | undefined;
  if (options.args !== undefined) {
    try {
      args = JSON.parse(options.args) as Record<string, unknown>;
    } catch {
      throw new UsageError('--args must be a JSON object');
    }
  }
  const headers: Record<string, string> = {};
  for (const header of options.header ?? []) {
    const cut = header.indexOf(':');
    if (cut <= 0) throw new UsageError(`--header must be 'Name: value', got ${JSON.stringify(header)}`);
    headers[header.slice(0, cut).trim().toLowerCase()] = header.slice(cut + 1).trim();
  }
  const report = await runDoctor({
    ...(command && command.length > 0 ? { command } : { url: url! }),
    headers,
    timeoutMs: options.timeout ?? 10_000,
    readOnly: options.readOnly ?? false,
    hints: {
      fast: options.tool,
      slow: options.slowTool,
      sampling: options.samplingTool,
      elicit: options.elicitTool,
    },
    ...(args ? { args } : {}),
    only: list(options.only),
    skip: list(options.skip),
    notice: (text) => process.stderr.write(`${text}\n`),
  });
  if (options.junit) writeFileSync(options.junit, renderJunit(report));
  process.stdout.write(options.json ? `${JSON.stringify(report, null, 2)}\n` : renderText(report));
  if (report.fatal && !options.json) process.stderr.write(`keel doctor: ${report.fatal.message}\n`);
  return report.fatal || report.summary.fail > 0 ? EXIT.failure : EXIT.ok;
}
