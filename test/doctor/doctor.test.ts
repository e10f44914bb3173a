/**
 * Issue 29: `keel doctor` run as users run it (the built CLI, a child process): every check
 * passes against Keel's own fixtures; against the deliberately broken servers
 * (test/doctor/patients/, no SDK) each misbehaviour fails the check made for it, in words a
 * server author understands; servers that cannot be checked at all get one clear message and
 * exit 1; nothing is left running.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { useProcessGuard } from '../helpers/guard.js';

useProcessGuard();

const CLI = 'dist/src/cli/bin.js';
const PATIENTS = 'test/doctor/patients';
const work = mkdtempSync(join(tmpdir(), 'keel-doctor-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

interface Report {
  fatal?: { message: string };
  target: { server?: { name: string } };
  checks: { id: string; status: string; observed: string; why: string; ref: string }[];
  summary: { pass: number; fail: number; na: number };
}

/** Run a command to its end (bounded); its exit code and output. */
function run(command: string, args: string[], env: Record<string, string> = {}, ms = 120_000) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(command, args, {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (t: string) => (stdout += t));
    child.stderr.setEncoding('utf8').on('data', (t: string) => (stderr += t));
    const timer = setTimeout(() => child.kill('SIGKILL'), ms);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

async function doctor(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; report: Report; stderr: string }> {
  const { code, stdout, stderr } = await run(
    process.execPath,
    [CLI, 'doctor', '--json', '--timeout', '5s', ...args],
    env,
  );
  return { code, report: JSON.parse(stdout) as Report, stderr };
}

/** An HTTP server script printing its URL first, for the length of `body`. */
async function withHttp<T>(
  script: string,
  env: Record<string, string>,
  body: (url: string) => Promise<T>,
): Promise<T> {
  const child = spawn(process.execPath, [script], {
    env: { ...process.env, PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const closed = new Promise((resolve) => child.once('close', resolve));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let text = '';
      child.stdout.setEncoding('utf8').on('data', (t: string) => {
        text += t;
        const line = text.split('\n')[0]!;
        if (text.includes('\n')) resolve(line.trim());
      });
      child.once('close', () => reject(new Error(`${script} exited before it listened`)));
    });
    return await body(url);
  } finally {
    child.kill('SIGKILL');
    await closed;
  }
}

const failed = (report: Report) => report.checks.filter((c) => c.status === 'fail').map((c) => c.id);

describe('issue 29: keel doctor against Keel', () => {
  it('stdio fixture: every check passes (exit 0), none skipped for a missing feature', async () => {
    const junit = join(work, 'stdio.xml');
    const { code, report } = await doctor([
      '--junit',
      junit,
      '--',
      process.execPath,
      'dist/examples/fixture-stdio.js',
    ]);
    expect(report.fatal).toBeUndefined();
    expect(failed(report)).toEqual([]);
    expect(report.summary).toMatchObject({ fail: 0, na: 0 });
    expect(report.checks.find((c) => c.id === 'stdio.oversized')!.observed).toMatch(/^refused it \(-32600\)/);
    expect(report.checks.length).toBeGreaterThanOrEqual(11);
    expect(code).toBe(0);
    const xml = readFileSync(junit, 'utf8');
    expect(xml).toMatch(
      /^<\?xml version="1.0" encoding="UTF-8"\?>\n<testsuite name="keel doctor" tests="\d+" failures="0"/,
    );
    expect(xml.match(/<testcase /g)).toHaveLength(report.checks.length);
  }, 120_000);

  // Sessions in memory, and on Redis when there is one (CI's REDIS_URL): there doctor found the
  // nested cancel lost with an asynchronous event store (docs/doctor.md, "Found in Keel").
  const setups = [
    { name: 'sessions in memory', redisUrl: '' },
    ...(process.env.REDIS_URL ? [{ name: 'sessions on Redis', redisUrl: process.env.REDIS_URL }] : []),
  ];
  it.each(setups)(
    'HTTP fixture ($name): every check passes, both eras',
    async ({ redisUrl }) => {
      await withHttp('dist/examples/fixture-http.js', { REDIS_URL: redisUrl }, async (url) => {
        const { code, report } = await doctor([url]);
        expect(failed(report)).toEqual([]);
        expect(report.summary.na).toBe(0);
        expect(report.checks.map((c) => c.id)).toContain('modern.discover');
        // The slow tool really ran when DELETE came (doctor asked its `seconds` for 3 s).
        expect(report.checks.find((c) => c.id === 'http.delete-during-call')!.observed).toMatch(
          /the call answered 200 with an error/,
        );
        expect(code).toBe(0);
      });
    },
    120_000,
  );
});

describe('issue 29: keel doctor against a broken stdio server (no SDK)', () => {
  const cases: [string, string, RegExp][] = [
    ['eof-call', 'stdio.eof-during-call', /still running \d+ ms after stdin reached EOF/],
    [
      'eof-sampling',
      'stdio.eof-during-sampling',
      /still running \d+ ms after stdin reached EOF while "ask" waited on sampling\/createMessage/,
    ],
    ['epipe', 'stdio.stdout-closed', /crashed \(exit code 1\) when its stdout was closed/],
    ['cancel-twice', 'stdio.cancel-race', /got 2 answers/],
    ['answer-after-cancel', 'stdio.cancel-race', /ran to the end and answered/],
    ['duplicate-id', 'stdio.duplicate-id', /two results for id/],
    ['malformed-crash', 'stdio.malformed-line', /stopped serving after a malformed line \(exit code 1\)/],
    ['malformed-stop', 'stdio.malformed-line', /stopped serving after a malformed line/],
    ['no-batch-error', 'stdio.batch', /no answer at all to a batch/],
    ['oversized-die', 'stdio.oversized', /stopped serving after a 4 MiB line/],
    ['stdout-log', 'stdio.stdout-clean', /line\(s\) that are not JSON-RPC/],
    ['second-init', 'stdio.second-initialize', /accepted a second initialize/],
    ['eof-idle', 'stdio.eof-idle', /still running \d+ ms after stdin reached EOF/],
  ];
  it('without a flag it passes the checks these cases use', async () => {
    const only = [...new Set(cases.map(([, id]) => id))].join(',');
    const { code, report } = await doctor([
      '--only',
      only,
      '--',
      process.execPath,
      `${PATIENTS}/broken-stdio.mjs`,
    ]);
    expect(failed(report)).toEqual([]);
    expect(code).toBe(0);
  }, 120_000);
  it.each(cases)(
    'BROKEN=%s fails %s, saying what happened',
    async (flag, id, observed) => {
      const { code, report } = await doctor(
        ['--only', id, '--', process.execPath, `${PATIENTS}/broken-stdio.mjs`],
        { BROKEN: flag },
      );
      const check = report.checks.find((c) => c.id === id)!;
      expect(check.status).toBe('fail');
      expect(check.observed).toMatch(observed);
      expect(check.why.length).toBeGreaterThan(20);
      expect(check.ref.length).toBeGreaterThan(5);
      expect(code).toBe(1);
    },
    60_000,
  );
});

describe('issue 29: keel doctor against a broken HTTP server (no SDK)', () => {
  const cases: [string, string, RegExp][] = [
    ['delete-hang', 'http.delete-during-call', /still open \d+ ms after DELETE/],
    ['no-origin', 'http.origin', /evil\.example could use this server/],
    ['no-host', 'http.host', /answered 200 to Host: evil\.example/],
    ['malformed-500', 'http.malformed-body', /answered 500/],
    ['malformed-crash', 'http.malformed-body', /stopped answering|stopped serving|did it crash/],
    ['no-body-limit', 'http.oversized-body', /an 8 MiB body was read in full/],
    ['leak-sessions', 'http.session-churn', /deleted sessions still answered/],
    // Only the server's RSS shows this one (doctor finds the local process through /proc).
    [
      'leak-memory',
      'http.session-churn',
      /RSS [\d.]+( → [\d.]+){5} MB: it kept at least \d+ KB per deleted session in each of the last 3 rounds/,
    ],
    [
      'nested-no-cancel',
      'http.nested-cancel',
      /no notifications\/cancelled for its sampling\/createMessage request/,
    ],
    ['drop-ends-session', 'http.disconnect-mid-stream', /the session stopped answering/],
    ['resume-no-answer', 'http.resume', /did not bring the call's answer within \d+ ms/],
    ['trust-state', 'modern.request-state-tampered', /accepted a requestState with one character changed/],
    ['any-version', 'modern.version-check', /with a result for version 2099-01-01/],
  ];
  it('without a flag it passes every HTTP check, resume and nested cancel included', async () => {
    await withHttp(`${PATIENTS}/broken-http.mjs`, {}, async (url) => {
      const { code, report } = await doctor([url]);
      expect(failed(report)).toEqual([]);
      expect(report.checks.find((c) => c.id === 'http.resume')!.status).toBe('pass');
      expect(report.checks.find((c) => c.id === 'http.nested-cancel')!.status).toBe('pass');
      expect(report.checks.find((c) => c.id === 'modern.request-state-tampered')).toMatchObject({
        status: 'pass',
        observed: 'refused: -32602 requestState was changed',
      });
      expect(code).toBe(0);
    });
  }, 60_000);
  it('BROKEN=no-resume: a stream without event ids is not resumable: n/a, not a failure', async () => {
    await withHttp(`${PATIENTS}/broken-http.mjs`, { BROKEN: 'no-resume' }, async (url) => {
      const { report } = await doctor(['--only', 'http.resume', url]);
      expect(report.checks[0]).toMatchObject({
        status: 'n/a',
        observed: expect.stringMatching(/no event ids/),
      });
    });
  }, 60_000);
  it.each(cases)(
    'BROKEN=%s fails %s',
    async (flag, id, observed) => {
      await withHttp(`${PATIENTS}/broken-http.mjs`, { BROKEN: flag }, async (url) => {
        const { code, report } = await doctor(['--only', id, url]);
        const check = report.checks.find((c) => c.id === id)!;
        expect(check.status).toBe('fail');
        expect(check.observed).toMatch(observed);
        expect(code).toBe(1);
      });
    },
    60_000,
  );
});

describe('issue 29: servers doctor cannot check', () => {
  it.each([
    ['crash-at-start.mjs', /exited \(exit code 3\) before answering initialize/],
    ['silent.mjs', /no answer to initialize within 5000 ms/],
    ['non-json.mjs', /text that is not JSON-RPC on stdout/],
    ['echo.mjs', /initialize answered without a protocolVersion/],
  ])(
    '%s: one clear message, exit 1',
    async (script, message) => {
      const { code, report } = await doctor(['--', process.execPath, `${PATIENTS}/${script}`]);
      expect(report.fatal?.message).toMatch(message);
      expect(report.checks).toEqual([]);
      expect(code).toBe(1);
    },
    60_000,
  );

  it('an HTTP server that is not MCP (HTML), and a port nobody listens on', async () => {
    await withHttp(`${PATIENTS}/html-http.mjs`, {}, async (url) => {
      const { code, report } = await doctor([url]);
      expect(report.fatal?.message).toMatch(/without an MCP answer: is .* an MCP endpoint\?/);
      expect(code).toBe(1);
    });
    const { code, report } = await doctor(['http://127.0.0.1:9/mcp']);
    expect(report.fatal?.message).toMatch(/no answer from http:\/\/127\.0\.0\.1:9\/mcp/);
    expect(code).toBe(1);
  }, 60_000);

  it('usage: neither a URL nor a command is exit 2', async () => {
    const { code, stderr } = await run(process.execPath, [CLI, 'doctor']);
    expect(code).toBe(2);
    expect(stderr).toMatch(/give a URL, or a command after --/);
  });
});

describe('issue 29: --read-only calls no tool', () => {
  it('the checks that need a call say so (n/a), the others run', async () => {
    const { code, report } = await doctor(
      ['--read-only', '--', process.execPath, `${PATIENTS}/broken-stdio.mjs`],
      {
        BROKEN: 'eof-call',
      },
    );
    const byId = Object.fromEntries(report.checks.map((c) => [c.id, c]));
    expect(byId['stdio.eof-during-call']).toMatchObject({
      status: 'n/a',
      observed: expect.stringMatching(/--read-only/),
    });
    expect(byId['stdio.eof-idle']!.status).toBe('pass');
    expect(code).toBe(0);
  }, 60_000);
});

describe('issue 29: keel doctor against the official TypeScript SDKs (stdio, as their READMEs start a server)', () => {
  const args = ['--args', '{"text":"hi","prompt":"hi"}'];
  it('SDK 1.x: hangs on EOF while a tool waits on sampling and crashes on EPIPE; passes the rest it does right', async () => {
    const { code, report } = await doctor([
      ...args,
      '--',
      process.execPath,
      'test/doctor/official/sdk1-stdio.mjs',
    ]);
    const status = Object.fromEntries(report.checks.map((c) => [c.id, c.status]));
    expect(report.checks.find((c) => c.id === 'stdio.eof-during-sampling')!.observed).toMatch(
      /still running \d+ ms after stdin reached EOF/,
    );
    expect(report.checks.find((c) => c.id === 'stdio.stdout-closed')!.observed).toMatch(
      /crashed \(exit code 1\)/,
    );
    expect(status).toMatchObject({
      'stdio.eof-idle': 'pass',
      'stdio.stdout-clean': 'pass',
      'stdio.malformed-line': 'pass',
      'stdio.cancel-race': 'pass',
    });
    expect(code).toBe(1);
  }, 120_000);
  it('SDK v2: ends cleanly on EOF; leaves a batch unanswered and accepts a second initialize', async () => {
    const { report } = await doctor([...args, '--', process.execPath, 'test/doctor/official/sdk2-stdio.mjs']);
    const status = Object.fromEntries(report.checks.map((c) => [c.id, c.status]));
    expect(status).toMatchObject({
      'stdio.eof-during-sampling': 'pass',
      'stdio.stdout-closed': 'pass',
      'stdio.batch': 'fail',
      'stdio.second-initialize': 'fail',
    });
  }, 120_000);
});

describe('issue 29: keel doctor against the official TypeScript SDKs over HTTP (as their documentation wires them)', () => {
  const args = ['--args', '{"text":"hi","prompt":"hi"}'];
  it('SDK 1.x with createMcpExpressApp: no Origin check; the rest it does right', async () => {
    await withHttp('test/doctor/official/sdk1-http.mjs', {}, async (url) => {
      const { code, report } = await doctor([...args, url]);
      const status = Object.fromEntries(report.checks.map((c) => [c.id, c.status]));
      expect(failed(report)).toEqual(['http.origin']);
      expect(report.checks.find((c) => c.id === 'http.origin')!.observed).toMatch(/answered 200/);
      expect(status).toMatchObject({
        'http.host': 'pass',
        'http.delete-during-call': 'pass',
        'http.nested-cancel': 'pass',
        'http.session-churn': 'pass',
        'modern.discover': 'n/a',
      });
      expect(code).toBe(1);
    });
  }, 120_000);
  it('SDK v2 on node:http, stateless as its README shows: passes; the session checks do not apply', async () => {
    await withHttp('test/doctor/official/sdk2-http.mjs', {}, async (url) => {
      const { code, report } = await doctor([...args, url]);
      const status = Object.fromEntries(report.checks.map((c) => [c.id, c.status]));
      expect(failed(report)).toEqual([]);
      expect(status).toMatchObject({
        'http.origin': 'pass',
        'http.host': 'pass',
        'http.malformed-body': 'pass',
        'http.oversized-body': 'pass',
        'http.delete-during-call': 'n/a',
        'http.nested-cancel': 'n/a',
      });
      expect(code).toBe(0);
    });
  }, 120_000);
});
