// Smoke lane: clients nobody here wrote call `test_simple_text` on our fixtures, over stdio and HTTP:
// the official SDK client (devDependency) and @modelcontextprotocol/inspector-cli.
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, startFixtureServer } from '../lib/fixture-server.mjs';
import { runToCompletion } from '../lib/children.mjs';
import { formatTable } from '../lib/report.mjs';

const STEP_TIMEOUT_MS = 60_000;
const SDK_SMOKE = join(dirname(fileURLToPath(import.meta.url)), '..', 'smoke', 'sdk-client-smoke.mjs');

/**
 * The stdio fixture command as argv, with repository-relative file arguments made absolute (the
 * inspector must run from its own folder: it finds its package.json relative to the working directory).
 *
 * @example
 * stdioArgv('/repo', 'node dist/examples/fixture-stdio.js'); // ['node', '/repo/dist/examples/fixture-stdio.js']
 */
export function stdioArgv(root, command) {
  return command
    .split(/\s+/)
    .filter(Boolean)
    .map((part, i) => (i > 0 && existsSync(resolve(root, part)) ? resolve(root, part) : part));
}

function inspectorVerdict(result) {
  if (result.timedOut) return { ok: false, detail: `timed out after ${STEP_TIMEOUT_MS / 1000}s` };
  if (result.code !== 0)
    return {
      ok: false,
      detail: `exit ${result.code ?? result.signal}: ${result.tail.trim().split('\n').slice(-3).join(' | ')}`,
    };
  try {
    const first = JSON.parse(result.stdout).content?.[0];
    if (first?.type === 'text' && first.text) return { ok: true, detail: JSON.stringify(first.text) };
    return { ok: false, detail: `unexpected result ${result.stdout.trim().slice(0, 200)}` };
  } catch {
    return { ok: false, detail: `stdout is not JSON: ${result.stdout.trim().slice(0, 200)}` };
  }
}

/**
 * Runs the four smoke calls and prints a table. Returns whether all passed.
 *
 * @example
 * const { ok } = await runSmokeLane(ctx);
 */
export async function runSmokeLane(ctx) {
  const { options } = ctx;
  const stdio = stdioArgv(ctx.root, options.stdioCommand);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/mcp`;
  const serverLog = join(ctx.logDir, `${ctx.stamp}-smoke-fixture-server.log`);
  ctx.log(`[smoke] starting \`${options.serverCommand}\` with PORT=${port} (log: ${serverLog})`);
  const server = await startFixtureServer(options.serverCommand, {
    port,
    url,
    logFile: serverLog,
    cwd: ctx.root,
  });
  const rows = [];
  try {
    const sdk = await runToCompletion(
      process.execPath,
      [SDK_SMOKE, '--stdio', JSON.stringify(stdio), '--http', url],
      {
        cwd: ctx.root,
        timeoutMs: STEP_TIMEOUT_MS,
        captureStdout: true,
        logFile: join(ctx.logDir, `${ctx.stamp}-smoke-sdk-client.log`),
      },
    );
    for (const transport of ['stdio', 'http']) {
      const line = sdk.stdout.split('\n').find((l) => l.includes(`sdk-client ${transport}:`));
      const ok = Boolean(line?.startsWith('ok'));
      const detail = line
        ? line.replace(/^\S+\s+sdk-client \S+: /, '')
        : sdk.timedOut
          ? 'timed out'
          : `no result: ${sdk.tail.trim().slice(-300)}`;
      rows.push([`@modelcontextprotocol/sdk client`, transport, ok ? 'pass' : 'FAIL', detail]);
    }
    const inspectorDir = dirname(ctx.tools.inspector.bin);
    const calls = {
      stdio: ['--cli', ...stdio, '--method', 'tools/call', '--tool-name', 'test_simple_text'],
      http: [
        '--cli',
        url,
        '--transport',
        'http',
        '--method',
        'tools/call',
        '--tool-name',
        'test_simple_text',
      ],
    };
    for (const [transport, args] of Object.entries(calls)) {
      const result = await runToCompletion(process.execPath, [ctx.tools.inspector.bin, ...args], {
        cwd: inspectorDir,
        timeoutMs: STEP_TIMEOUT_MS,
        captureStdout: true,
        logFile: join(ctx.logDir, `${ctx.stamp}-smoke-inspector-${transport}.log`),
      });
      const { ok, detail } = inspectorVerdict(result);
      rows.push([`inspector-cli ${ctx.tools.inspector.version}`, transport, ok ? 'pass' : 'FAIL', detail]);
    }
  } finally {
    const exit = await server.stop();
    if (exit.forced)
      rows.push(['fixture server shutdown', 'http', 'FAIL', 'did not exit within 5 s of SIGTERM']);
  }
  const ok = rows.every((row) => row[2] === 'pass');
  ctx.print(
    `\n── smoke: real clients call test_simple_text ──\n${formatTable(['client', 'transport', 'status', 'detail'], rows)}`,
  );
  ctx.print(
    `stdio fixture: ${stdio.join(' ')}\nHTTP fixture: ${url} (log ${serverLog})\nresult: ${ok ? 'PASS' : 'FAIL'}`,
  );
  if (!ok) ctx.print(`logs: ${ctx.logDir}/${ctx.stamp}-smoke-*.log`);
  const passed = rows.filter((row) => row[2] === 'pass').length;
  return {
    ok,
    summaries: [`smoke: ${passed} passed, ${rows.length - passed} failed → ${ok ? 'PASS' : 'FAIL'}`],
  };
}
