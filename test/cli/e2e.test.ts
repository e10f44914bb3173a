/**
 * The compiled `keel` bin end to end (stdin not a terminal) against the test server, over stdio
 * (a command after --) and Streamable HTTP on 127.0.0.1, in both eras: every command, --json,
 * typed arguments, exit codes, log lines, plain progress lines, non-interactive elicitation and
 * refused sampling.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { useProcessGuard, within } from '../helpers/guard.js';
import {
  requireBuiltBin,
  requireTestServer,
  ROOT,
  runCli,
  SERVER,
  startHttpServer,
  STDIO,
} from './helpers.js';

useProcessGuard();

const HOSTILE = join(ROOT, 'test', 'cli', 'fixtures', 'hostile-server.mjs');
let http: Awaited<ReturnType<typeof startHttpServer>>;
const work = mkdtempSync(join(tmpdir(), 'keel-cli-e2e-'));

beforeAll(async () => {
  requireBuiltBin();
  requireTestServer();
  http = await startHttpServer();
}, 30_000);
afterAll(async () => {
  await http?.stop();
  rmSync(work, { recursive: true, force: true });
});

type Where = 'stdio' | 'http';
/** `keel <command> <server> <rest>` with the server placed as the CLI wants it. */
function cli(where: Where, command: string, rest: readonly string[], options: readonly string[] = []) {
  return where === 'stdio'
    ? runCli([command, ...rest, ...options, ...STDIO])
    : runCli([command, http.url, ...rest, ...options]);
}

describe.each([
  ['stdio', 'legacy'],
  ['stdio', 'modern'],
  ['http', 'legacy'],
  ['http', 'modern'],
] as const)('%s, %s era', (where, era) => {
  const opts = ['--era', era];

  test('ping names the server and the era', async () => {
    const run = await cli(where, 'ping', [], opts);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^ok: cli-test 1\\.2\\.3 \\(${era}, `));
  });

  test('tools lists names, titles, descriptions and arguments', async () => {
    const run = await cli(where, 'tools', [], opts);
    expect(run.code).toBe(0);
    const lines = run.stdout.split('\n');
    expect(lines).toContain('echo: Echo the text');
    // Issue 23 item 14: each argument on its own line, with its description's first line.
    expect(lines).toContain('  text: string  The text to send back');
    const types = lines.indexOf('types (Typed arguments): Returns its arguments as structured content');
    expect(lines.slice(types + 1, types + 8)).toEqual([
      '  n: integer',
      '  x?: number',
      '  on?: boolean',
      '  tags?: array',
      '  meta?: object',
      '  maybe?: string|null',
      '  word?: string',
    ]);
  });

  test('call: typed arguments reach the tool; structuredContent is pretty-printed', async () => {
    const run = await cli(
      where,
      'call',
      ['types', 'n=3', 'on=true', 'tags=["a"]', 'maybe=null', 'word=42', 'x:=2'],
      opts,
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const args = { n: 3, on: true, tags: ['a'], maybe: null, word: '42', x: 2 };
    expect(JSON.parse(run.stdout)).toEqual({ args });
    expect(run.stdout).toMatch(/^\{\n {2}"args": \{\n {4}"n": 3,\n/); // indented
  });

  test('call --json prints the raw result', async () => {
    const run = await cli(where, 'call', ['echo', 'text=hi there'], [...opts, '--json']);
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout) as { content: unknown; isError?: boolean };
    expect(result.content).toEqual([{ type: 'text', text: 'hi there' }]);
    expect(result.isError).toBeUndefined();
  });

  test('read and prompt', async () => {
    const read = await cli(where, 'read', ['note://hello'], opts);
    expect([read.code, read.stdout]).toEqual([0, 'hello note\n']);
    const prompt = await cli(where, 'prompt', ['greet', 'who=Ada'], opts);
    expect([prompt.code, prompt.stdout]).toEqual([0, 'user: Say hi to Ada\n']);
    const resources = await cli(where, 'resources', [], opts);
    expect([resources.code, resources.stdout]).toEqual([0, 'note://hello  note (text/plain): A note\n']);
    const prompts = await cli(where, 'prompts', [], opts);
    expect([prompts.code, prompts.stdout]).toEqual([0, 'greet: Greets\n  who\n']);
  });

  test('an isError result prints to stderr and exits 1', async () => {
    const run = await cli(where, 'call', ['fail'], opts);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('keel: tool "fail" failed:\nthis tool always fails\n');
  });

  test('log lines print on stderr as they come', async () => {
    const run = await cli(where, 'call', ['chatty'], opts);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('chatty done\n');
    expect(run.stderr).toContain('[info] first log line\n');
    expect(run.stderr).toContain('[warning] second log line\n');
  });

  test('progress prints plain lines when stderr is not a terminal', async () => {
    const dir = mkdtempSync(join(work, 'gates-'));
    for (const step of [1, 2, 3]) writeFileSync(join(dir, `go-${step}`), '');
    const run = await cli(where, 'call', ['gated_progress', `dir=${dir}`], opts);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('progress done\n');
    expect(run.stderr).toContain('progress 25% step 1\nprogress 50% step 2\nprogress 75% step 3\n');
  });

  test('an elicitation without a terminal is declined, with a clear stderr line', async () => {
    const run = await cli(where, 'call', ['ask'], opts);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('answer: decline {}\n');
    expect(run.stderr).toContain(
      `keel: declined the server's request for input ("Who are you?"): stdin is not a terminal`,
    );
  });
});

test('a value that does not fit the schema is a usage error (exit 2)', async () => {
  const run = await runCli(['call', 'types', 'n=abc', ...STDIO]);
  expect(run.code).toBe(2);
  expect(run.stderr).toBe(
    'keel: n: expected integer, got "abc"\nUsage: keel call <server> <tool> [key=value...] [options]\n',
  );
});

test('--quiet hides progress and log lines', async () => {
  const dir = mkdtempSync(join(work, 'gates-'));
  for (const step of [1, 2, 3]) writeFileSync(join(dir, `go-${step}`), '');
  const quiet = await runCli(['call', 'gated_progress', `dir=${dir}`, '--quiet', ...STDIO]);
  expect([quiet.code, quiet.stdout, quiet.stderr]).toEqual([0, 'progress done\n', '']);
  const chatty = await runCli(['call', 'chatty', '-q', ...STDIO]);
  expect([chatty.code, chatty.stdout, chatty.stderr]).toEqual([0, 'chatty done\n', '']);
});

test('URL-mode elicitation without a terminal: the URL is printed and the request declined', async () => {
  const run = await runCli(['call', 'open_url', ...STDIO]);
  expect([run.code, run.stdout]).toEqual([0, 'url: decline\n']);
  expect(run.stderr).toContain(
    'keel: the server asks you to open https://example.com/login\n  Sign in to continue\n',
  );
  expect(run.stderr).toContain('stdin is not a terminal');
});

test('sampling is refused without --sampling: the server sees the error', async () => {
  const run = await runCli(['call', 'sample', '--era', 'legacy', ...STDIO]);
  expect(run.code).toBe(1);
  expect(run.stderr).toContain(
    "keel: refused the server's sampling request: run keel with --sampling prompt",
  );
  // The tool failed with the JSON-RPC error keel answered.
  expect(run.stderr).toContain(
    'keel: tool "sample" failed:\nSampling refused by keel: run keel with --sampling prompt',
  );
});

test('an unknown tool exits 1 and says how to list them', async () => {
  const run = await runCli(['call', 'nope', ...STDIO]);
  expect(run.code).toBe(1);
  expect(run.stderr).toContain('has no tool "nope" (keel tools lists them)');
});

test('a server that cannot be reached: the message names the URL, exit 1', async () => {
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/mcp`;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  const run = await runCli(['ping', url]);
  expect(run.code).toBe(1);
  expect(run.stderr).toContain(`keel: cannot connect to ${url}: `);
});

describe('issue 23 item 14: a stdio server that fails at start', () => {
  const dies = [
    '--',
    process.execPath,
    '-e',
    'console.error("boom on stderr"); console.error("second line"); process.stderr.write("last, no newline"); process.exit(3)',
  ];
  const times = (text: string, line: string) => text.split('\n').filter((l) => l.trim() === line).length;

  test('its stderr is shown once (as it comes), then the message that names the command', async () => {
    const run = await runCli(['ping', ...dies]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`keel: cannot connect to \`${process.execPath} -e`);
    expect(run.stderr).toMatch(/^boom on stderr\nsecond line\nlast, no newline\nkeel: cannot connect/);
    for (const line of ['boom on stderr', 'second line', 'last, no newline'])
      expect(times(run.stderr, line), line).toBe(1);
  });

  test('with --quiet its last lines are shown once, with the message', async () => {
    const run = await runCli(['ping', '--quiet', ...dies]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^keel: cannot connect to /);
    for (const line of ['boom on stderr', 'second line', 'last, no newline'])
      expect(times(run.stderr, line), line).toBe(1);
  });
});

test('issue 23 item 14: a missing required argument is a local usage error (exit 2), and no call is sent', async () => {
  const file = join(work, 'touched');
  const run = await runCli(['call', 'touch', `path=${file}`, ...STDIO]);
  expect(run.code).toBe(2);
  expect(run.stderr).toBe(
    'keel: touch: missing required argument note (keel tools lists the arguments)\nUsage: keel call <server> <tool> [key=value...] [options]\n',
  );
  expect(existsSync(file)).toBe(false);
  const both = await runCli(['call', 'touch', 'mode=x', ...STDIO]);
  expect(both.stderr).toContain('missing required arguments path, note ');
  // With them all, the call goes through.
  const ok = await runCli(['call', 'touch', `path=${file}`, 'note=hi', ...STDIO]);
  expect([ok.code, ok.stdout, readFileSync(file, 'utf8')]).toEqual([0, 'written\n', 'hi']);
});

test('issue 23 item 4: --json stays valid JSON with the data intact, and terminal-safe', async () => {
  const run = await runCli(['tools', '--json', '--', process.execPath, HOSTILE]);
  expect(run.code).toBe(0);
  // eslint-disable-next-line no-control-regex -- looking for raw controls
  expect(run.stdout).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f-\x9f]/);
  const { tools } = JSON.parse(run.stdout) as { tools: { name: string }[] };
  expect(tools[0]!.name).toBe('evil\x1b]0;PWNED\x07\x1b[2J\x1b]52;c;UFdORUQ=\x07\x1bc\u009b7m\x07\rFAKE');
});

test('issue 23 item 4: without a terminal too, nothing the server sends reaches stderr or stdout raw', async () => {
  for (const args of [
    ['tools'],
    ['call', 'form'],
    ['call', 'url'],
    ['call', 'sample'],
    ['read', 'evil://broken'],
  ]) {
    const run = await runCli([...args, '--', process.execPath, HOSTILE]);
    // eslint-disable-next-line no-control-regex -- looking for raw controls
    expect(run.stdout + run.stderr, args.join(' ')).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f-\x9f]/);
    if (args[1] !== 'sample') expect(run.stdout + run.stderr, args.join(' ')).toContain('\\x1b]0;PWNED');
  }
});

test('issue 23 item 10: a server that prints text on its stdout gets one warning, and the command still works', async () => {
  const noisy = `console.log('Server starting on stdio'); console.log('{"not":"json-rpc"}'); await import(${JSON.stringify(pathToFileURL(SERVER).href)});`;
  const run = await runCli(['ping', '--quiet', '--', process.execPath, '--input-type=module', '-e', noisy]);
  expect(run.code).toBe(0);
  const warnings = run.stderr.split('\n').filter((line) => line.startsWith('keel: warning:'));
  expect(warnings).toHaveLength(1);
  expect(warnings[0]).toContain('Server starting on stdio');
});

test('--header reaches the HTTP server', async () => {
  const seen: (string | undefined)[] = [];
  const server = createServer((req, res) => {
    seen.push(req.headers['x-keel-test'] as string | undefined);
    res.writeHead(500).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
    const run = await runCli(['ping', url, '--header', 'X-Keel-Test: yes please']);
    expect(run.code).toBe(1);
    expect(seen.length).toBeGreaterThan(0);
    expect(new Set(seen)).toEqual(new Set(['yes please']));
  } finally {
    server.closeAllConnections();
    await within(new Promise<void>((resolve) => server.close(() => resolve())), 5_000, 'server close');
  }
});

describe('issue 23 item 11: --timeout', () => {
  test('bounds a call: a clear message, exit 124, and the handler sees the cancel', async () => {
    const marker = join(work, 'timeout-marker');
    // Long enough for the server to start on a busy machine: the deadline covers connecting too.
    const run = await runCli(['call', 'wait', `marker=${marker}`, '--timeout', '3s', ...STDIO]);
    expect(run.code).toBe(124);
    expect(run.stderr).toBe(
      `keel: timed out after 3 s waiting for \`${process.execPath} ${SERVER}\` to answer (tools/call wait)\n`,
    );
    expect(readFileSync(marker, 'utf8')).toBe('aborted: CancelledByPeerError');
  });

  test('bounds connecting to a server that never answers (seconds by default); no waiting line without a terminal', async () => {
    const run = await runCli([
      'tools',
      '--timeout',
      '1',
      '--',
      process.execPath,
      '-e',
      'setInterval(() => {}, 1000)',
    ]);
    expect(run.code).toBe(124);
    expect(run.stderr).toBe(
      `keel: timed out after 1 s waiting for \`${process.execPath} -e setInterval(() => {}, 1000)\` to answer (connecting)\n`,
    );
  });

  test('a value that is not a duration is a usage error', async () => {
    const run = await runCli(['ping', '--timeout', '10x', ...STDIO]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--timeout must be seconds (30, 1.5) or have a unit (500ms, 30s, 2m)');
  });
});

describe('usage', () => {
  test('no command, an unknown command, a bad option value and a missing operand exit 2', async () => {
    for (const args of [
      [],
      ['bogus'],
      ['ping', '--era', 'old', ...STDIO],
      ['read', ...STDIO],
      ['tools', 'extra', ...STDIO],
    ]) {
      const run = await runCli(args);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr, args.join(' ')).toMatch(/Usage: keel/);
    }
  });

  test('--help exits 0 and lists the commands', async () => {
    const run = await runCli(['--help']);
    expect(run.code).toBe(0);
    for (const name of ['tools', 'resources', 'prompts', 'call', 'read', 'prompt', 'ping']) {
      expect(run.stdout).toMatch(new RegExp(`^  ${name} `, 'm'));
    }
  });
});
