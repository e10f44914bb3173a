/**
 * Issue 25: `keel call` of a task (the compiled bin, stdin not a terminal, 2026-07-28 era over
 * stdio and HTTP): the task's status prints as plain lines on stderr; a required tool runs as a
 * task by itself, an optional one with `--task`; Ctrl+C (SIGINT) cancels the task on the server
 * (`tasks/cancel`: the handler sees TaskCancelledError), says "cancelled task <id>" and exits 130.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { useProcessGuard, within } from '../helpers/guard.js';
import {
  BIN,
  requireBuiltBin,
  requireTestServer,
  ROOT,
  startHttpServer,
  STDIO,
  type CliRun,
} from './helpers.js';

useProcessGuard();

let http: Awaited<ReturnType<typeof startHttpServer>>;
const work = mkdtempSync(join(tmpdir(), 'keel-cli-tasks-'));

beforeAll(async () => {
  requireBuiltBin();
  requireTestServer();
  http = await startHttpServer();
}, 30_000);
afterAll(async () => {
  await http?.stop();
  rmSync(work, { recursive: true, force: true });
});

/** `keel call ...` started, with a way to wait for a file and to send SIGINT. */
function start(args: readonly string[]): {
  done: Promise<CliRun>;
  interrupt: () => void;
  stderr: () => string;
} {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
  child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  const exit = new Promise<CliRun>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
  return {
    done: within(exit, 20_000, `keel ${args.join(' ')}`).finally(() => child.kill('SIGKILL')),
    interrupt: () => child.kill('SIGINT'),
    stderr: () => stderr,
  };
}

/** Wait (bounded: 20 s, checked every 20 ms) until `check` holds. */
async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 1_000; i++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`never happened: ${what}`);
}

describe.each(['stdio', 'http'] as const)('%s, modern era', (where) => {
  const call = (rest: readonly string[]): string[] =>
    where === 'stdio'
      ? ['call', ...rest, '--era', 'modern', ...STDIO]
      : ['call', http.url, ...rest, '--era', 'modern'];

  test('--task: the status prints live on stderr; the result on stdout', async () => {
    const dir = mkdtempSync(join(work, 'steps-'));
    const run = start(call(['task_steps', `dir=${dir}`, '--task']));
    await until(() => run.stderr().includes('working: halfway'), 'the halfway status');
    writeFileSync(join(dir, 'go'), 'go');
    const { code, stdout, stderr } = await run.done;
    expect(code).toBe(0);
    expect(stdout).toBe('steps done\n');
    expect(stderr).toMatch(/^task [A-Za-z0-9_-]+ working: halfway$/m);
    expect(stderr).toMatch(/^task [A-Za-z0-9_-]+ completed: halfway$/m);
  });

  test("Ctrl+C cancels a required tool's task on the server and says so; exit 130", async () => {
    const marker = join(work, `task-marker-${where}`);
    const run = start(call(['task_wait', `marker=${marker}`]));
    await until(
      () => existsSync(`${marker}.started`) && /^task \S+ working/m.test(run.stderr()),
      'the task started',
    );
    run.interrupt();
    const { code, stderr } = await run.done;
    expect(code).toBe(130);
    const id = /^task (\S+) working/m.exec(stderr)![1]!;
    expect(stderr).toContain(`keel: cancelled task ${id}\n`);
    expect(stderr.endsWith('keel: cancelled\n')).toBe(true);
    await until(() => existsSync(marker), 'the handler saw the cancel');
    expect(readFileSync(marker, 'utf8')).toBe('aborted: TaskCancelledError');
  });
});

describe('legacy era (2025-11-25): the official SDK 1.32 tasks server over stdio', () => {
  const OFFICIAL = [
    '--',
    process.execPath,
    join(ROOT, 'test', 'e2e', 'fixtures', 'official-tasks-server.mjs'),
    'stdio',
  ];

  test('--task on an optional tool: the status lines, then the result', async () => {
    const run = start(['call', 'slow', 'ms=100', '--task', ...OFFICIAL]);
    const { code, stdout, stderr } = await run.done;
    expect(code).toBe(0);
    expect(stdout).toBe('slept 100\n');
    expect(stderr).toMatch(/^task [0-9a-f]{32} working/m);
    expect(stderr).toMatch(/^task [0-9a-f]{32} completed/m);
  });

  test('Ctrl+C cancels the task (tasks/cancel) and says so; exit 130', async () => {
    const run = start(['call', 'block', ...OFFICIAL]);
    await until(() => /^task \S+ working/m.test(run.stderr()), 'the task started');
    run.interrupt();
    const { code, stderr } = await run.done;
    expect(code).toBe(130);
    const id = /^task (\S+) working/m.exec(stderr)![1]!;
    expect(stderr).toContain(`keel: cancelled task ${id}\n`);
  });
});
