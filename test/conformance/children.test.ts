import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRunnerModule, type ChildrenModule } from './runner-modules.js';

let children: ChildrenModule;
let dir: string;

beforeAll(async () => {
  children = await loadRunnerModule<ChildrenModule>('lib/children.mjs');
  dir = mkdtempSync(join(tmpdir(), 'keel-conformance-children-'));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.runIf(process.platform === 'linux')('child process groups', () => {
  it('stops a shell and the process it started with SIGTERM, without forcing', async () => {
    const handle = children.spawnTracked('sh', ['-c', 'sleep 30; echo never'], {
      logFile: join(dir, 'a.log'),
    });
    const pgid = handle.child.pid;
    expect(children.groupAlive(pgid)).toBe(true);
    const result = await children.stopChild(handle, 5_000);
    expect(result.forced).toBe(false);
    expect(children.groupAlive(pgid)).toBe(false);
  });

  it('kills, and reports, a group whose member ignores SIGTERM', async () => {
    // `trap "" TERM` makes the shell and the sleep it starts ignore SIGTERM.
    const handle = children.spawnTracked('sh', ['-c', 'trap "" TERM; echo ready; sleep 30'], {
      logFile: join(dir, 'b.log'),
    });
    const pgid = handle.child.pid;
    // Signal only once the trap is in place (bounded wait for the shell's first output).
    for (let i = 0; i < 100 && !handle.tail.includes('ready'); i += 1)
      await new Promise((r) => setTimeout(r, 20));
    expect(handle.tail).toContain('ready');
    const result = await children.stopChild(handle, 300);
    expect(result.forced).toBe(true);
    expect(children.groupAlive(pgid)).toBe(false);
  });

  it('bounds a run and kills it on timeout, keeping its stdout', async () => {
    const result = await children.runToCompletion('sh', ['-c', 'echo started; sleep 30'], {
      timeoutMs: 300,
      logFile: join(dir, 'c.log'),
      captureStdout: true,
    });
    expect(result.timedOut).toBe(true);
    expect(result.stdout).toBe('started\n');
    const done = await children.runToCompletion('sh', ['-c', 'exit 3'], {
      timeoutMs: 5_000,
      logFile: join(dir, 'd.log'),
    });
    expect(done).toMatchObject({ code: 3, timedOut: false });
  });
});
