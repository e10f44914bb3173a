// Command-line options of the conformance runner.
import { parseArgs } from 'node:util';

export const LANES = [
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

/**
 * Lanes whose suite Keel does not pass yet: they print and record their counts but never fail the
 * run, and `all` leaves them out (they only run when named). None today; the next protocol
 * revision starts here.
 */
export const REPORT_ONLY_LANES = [];

/** Lanes that run a suite against a server (the rest run it against a client, or are smoke tests). */
const SCENARIO_LANES = LANES.filter((lane) => lane !== 'smoke');

export const USAGE = `Usage: npm run conformance -- [options]
       node scripts/conformance/run.mjs [options]

Runs the official MCP conformance suite (and smoke tests with real clients) against Keel's fixtures.

Lanes (--lane, repeatable or comma-separated; default: all):
  server   @modelcontextprotocol/conformance 0.1.16 "server --suite all" against the HTTP fixture
  client   0.1.16 "client --suite all" against the fixture client, with the expected-failures list
  next     0.2.0-alpha.12 "server --suite all --spec-version 2025-11-25" against the HTTP fixture
  modern-server
           0.2.0-alpha.12 "server --suite all --spec-version 2026-07-28" against the HTTP fixture
  modern-client
           0.2.0-alpha.12 "client --suite all --spec-version 2026-07-28" against the fixture client,
           with the 2026-07-28 expected-failures list
  tasks    0.2.0-alpha.12 "server --scenario <tasks-*> --force" for each tasks-extension scenario
           (SEP-2663, 2026-07-28) against the HTTP fixture
  ext-server
           0.2.0-alpha.12 "server --scenario <name> --force" for each other [extension] scenario
           (skills, SEP-2640) against the HTTP fixture; a SKIPPED check fails it
  ext-client
           0.2.0-alpha.12 "client --scenario <name> --force" for each [extension] client scenario
           but tasks-* (authorization extensions, skills) against the fixture client; SKIPPED fails
  smoke    official SDK client + inspector-cli call test_simple_text over stdio and HTTP
  all      the nine above, in that order

Options:
  --lane <lane>               see above
  --repeat <n>                run the server, modern-server, tasks and ext-server lanes n times in a row, each against
                              one server process (default 1)
  --scenario <name>           run one scenario in one server/client/next/modern-* lane (for details)
  --allow-warnings            do not fail a scenario for WARNING checks (default: warnings fail)
  --expected-failures <file>  baseline for the client lane (default conformance/expected-failures.yml)
  --expected-failures-modern <file>
                              baseline for the modern-client lane
                              (default conformance/expected-failures-2026-07-28.yml)
  --server-command <cmd>      HTTP fixture, started with PORT set (default "npm run --silent fixture:http")
  --client-command <cmd>      fixture client; the suite appends the server URL
                              (default "npm run --silent fixture:client")
  --stdio-command <cmd>       stdio fixture for the smoke lane (default "node dist/examples/fixture-stdio.js")
  --no-build                  skip "npm run build" before the lanes
  --no-netns                  run the client lane without a loopback-only network namespace
  --verbose                   stream the suite's own output to the terminal
  -h, --help                  this text

Installs pinned tools into .conformance/ on first use; logs go to .conformance/logs/, results to
.conformance/results/. Exit code: 0 when every selected lane passed (report-only lanes do not count), 1 otherwise, 2 on
bad usage.`;

/** Thrown for a command line the runner cannot use; the runner prints it with the usage and exits 2. */
export class UsageError extends Error {}

/**
 * Parses the runner's argv into a settled options object.
 *
 * @example
 * parseOptions(['--lane', 'server', '--repeat', '3']).lanes; // ['server']
 */
export function parseOptions(argv) {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      allowNegative: true,
      options: {
        lane: { type: 'string', multiple: true },
        repeat: { type: 'string', default: '1' },
        scenario: { type: 'string' },
        'allow-warnings': { type: 'boolean', default: false },
        'expected-failures': { type: 'string', default: 'conformance/expected-failures.yml' },
        'expected-failures-modern': {
          type: 'string',
          default: 'conformance/expected-failures-2026-07-28.yml',
        },
        'server-command': { type: 'string', default: 'npm run --silent fixture:http' },
        'client-command': { type: 'string', default: 'npm run --silent fixture:client' },
        'stdio-command': { type: 'string', default: 'node dist/examples/fixture-stdio.js' },
        build: { type: 'boolean', default: true },
        netns: { type: 'boolean', default: true },
        verbose: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }));
  } catch (error) {
    throw new UsageError(error.message);
  }
  const requested = (values.lane ?? ['all']).flatMap((lane) => lane.split(',')).map((lane) => lane.trim());
  const known = [...LANES, ...REPORT_ONLY_LANES];
  const unknown = requested.filter((lane) => lane !== 'all' && !known.includes(lane));
  if (unknown.length > 0)
    throw new UsageError(`unknown lane ${unknown.join(', ')} (use ${known.join('|')}|all)`);
  // `all` means the judged lanes; a report-only lane runs only when it is named.
  const lanes = known.filter(
    (lane) => requested.includes(lane) || (requested.includes('all') && LANES.includes(lane)),
  );
  if (values.scenario && (lanes.length !== 1 || !SCENARIO_LANES.includes(lanes[0]))) {
    throw new UsageError(`--scenario needs exactly one of --lane ${SCENARIO_LANES.join(', ')}`);
  }
  const repeat = Number(values.repeat);
  if (!Number.isInteger(repeat) || repeat < 1 || repeat > 20)
    throw new UsageError('--repeat must be an integer 1..20');
  return {
    help: values.help,
    lanes,
    repeat,
    scenario: values.scenario,
    allowWarnings: values['allow-warnings'],
    expectedFailures: values['expected-failures'],
    expectedFailuresModern: values['expected-failures-modern'],
    serverCommand: values['server-command'],
    clientCommand: values['client-command'],
    stdioCommand: values['stdio-command'],
    build: values.build,
    netns: values.netns,
    verbose: values.verbose,
  };
}
