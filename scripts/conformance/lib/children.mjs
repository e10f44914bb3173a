// Child processes: every one is tracked, runs in its own process group (so `npm run` → sh → node
// dies as a whole), logs to a file, and is killed when the runner exits for any reason.
import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';

const live = new Set();
const TAIL_BYTES = 16_384;

function signalGroup(child, signal) {
  try {
    // A negative pid targets the process group this runner created for the child (detached: true).
    process.kill(-child.pid, signal);
  } catch {
    // Already gone: nothing to do.
  }
}

/**
 * Kills every child still running with SIGKILL. Synchronous, so it is safe inside an 'exit' handler.
 *
 * @example
 * process.on('exit', killAllChildren);
 */
export function killAllChildren() {
  for (const child of live) signalGroup(child, 'SIGKILL');
  live.clear();
}

let handlersInstalled = false;

/**
 * Makes Ctrl+C, SIGTERM and any exit path take the children down too.
 *
 * @example
 * installExitHandlers();
 */
export function installExitHandlers() {
  if (handlersInstalled) return;
  handlersInstalled = true;
  process.on('exit', killAllChildren);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(signal, () => {
      console.error(`\nconformance runner: ${signal} received, stopping child processes`);
      killAllChildren();
      process.exit(signal === 'SIGINT' ? 130 : 143);
    });
  }
}

/**
 * Starts a tracked child. Output goes to `logFile` (and to this terminal with `echo`), and the last
 * 16 KiB stay in memory for error reports.
 *
 * @example
 * const handle = spawnTracked('npm', ['run', 'fixture:http'], { logFile: '.conformance/logs/server.log' });
 * await handle.exited;
 */
export function spawnTracked(command, args, { cwd, env, logFile, echo = false, captureStdout = false } = {}) {
  mkdirSync(dirname(logFile), { recursive: true });
  const log = createWriteStream(logFile);
  // A log that cannot be written (its folder removed, disk full) must not crash the runner.
  log.on('error', (error) => {
    tail += `\n[log error] ${error.message}`;
  });
  const child = spawn(command, args, {
    cwd,
    env: env ?? process.env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(child);
  let tail = '';
  let stdout = '';
  const take = (chunk, stream) => {
    log.write(chunk);
    if (echo) stream.write(chunk);
    tail = (tail + chunk.toString()).slice(-TAIL_BYTES);
  };
  child.stdout.on('data', (chunk) => {
    if (captureStdout) stdout += chunk.toString();
    take(chunk, process.stdout);
  });
  child.stderr.on('data', (chunk) => take(chunk, process.stderr));
  const exited = new Promise((resolve) => {
    let exit;
    let finished = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      live.delete(child);
      // Settle once the log is flushed and closed, so a caller may read or remove it right away.
      // 'close' comes after a clean end and after a failed open or write alike.
      if (log.closed) resolve(exit);
      else log.once('close', () => resolve(exit));
      log.end();
    };
    child.on('error', (error) => {
      tail += `\n[spawn error] ${error.message}`;
      exit ??= { code: null, signal: null, error };
      finish();
    });
    child.on('exit', (code, signal) => {
      exit = { code, signal };
      // A grandchild may keep the pipes open after the child itself exits: give 'close' a moment, no more.
      const fallback = setTimeout(finish, 2_000);
      child.once('close', () => {
        clearTimeout(fallback);
        finish();
      });
    });
  });
  return {
    child,
    exited,
    logFile,
    get tail() {
      return tail;
    },
    get stdout() {
      return stdout;
    },
    get running() {
      return child.exitCode === null && child.signalCode === null && live.has(child);
    },
  };
}

function timeout(ms) {
  let timer;
  const promise = new Promise((resolve) => {
    timer = setTimeout(() => resolve('timeout'), ms);
  });
  return { promise, cancel: () => clearTimeout(timer) };
}

/**
 * Whether any live (non-zombie) process is still in the process group `pgid`. The group leader is
 * often a shell (`sh -c "npm run …"`) that dies at once on SIGTERM while the real server lingers,
 * so the leader's exit alone says little.
 *
 * @example
 * groupAlive(handle.child.pid); // false once everything the child started is gone
 */
export function groupAlive(pgid) {
  if (!pgid) return false;
  if (process.platform === 'linux') {
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      let stat;
      try {
        stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      } catch {
        continue; // exited while we looked
      }
      // Fields after the parenthesised command name: state ppid pgrp …
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(pgrp) === pgid && state !== 'Z') return true;
    }
    return false;
  }
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitForGroupExit(pgid, ms) {
  const deadline = Date.now() + ms;
  while (groupAlive(pgid)) {
    if (Date.now() >= deadline) return false;
    await pause(50);
  }
  return true;
}

/**
 * Stops a tracked child's whole process group: SIGTERM, then SIGKILL if anything in the group is
 * still alive after `graceMs`. The result has `forced: true` when SIGKILL was needed.
 *
 * @example
 * const { forced } = await stopChild(handle, 5_000);
 */
export async function stopChild(handle, graceMs = 5_000) {
  const pgid = handle.child.pid;
  let forced = false;
  if (groupAlive(pgid)) {
    signalGroup(handle.child, 'SIGTERM');
    if (!(await waitForGroupExit(pgid, graceMs))) {
      forced = true;
      signalGroup(handle.child, 'SIGKILL');
      await waitForGroupExit(pgid, 3_000);
    }
  }
  const limit = timeout(3_000);
  const exit = await Promise.race([handle.exited, limit.promise]);
  limit.cancel();
  return { ...(exit === 'timeout' ? { code: null, signal: 'SIGKILL' } : exit), forced };
}

/**
 * Runs a command to the end, bounded by `timeoutMs` (then its group is killed).
 *
 * @example
 * const { code, timedOut, tail } = await runToCompletion('npm', ['run', 'build'], { timeoutMs: 120_000, logFile });
 */
export async function runToCompletion(command, args, { timeoutMs, ...options }) {
  const handle = spawnTracked(command, args, options);
  const limit = timeout(timeoutMs);
  const outcome = await Promise.race([handle.exited, limit.promise]);
  limit.cancel();
  if (outcome === 'timeout') {
    const stopped = await stopChild(handle, 2_000);
    return { ...stopped, timedOut: true, tail: handle.tail, stdout: handle.stdout, logFile: handle.logFile };
  }
  return { ...outcome, timedOut: false, tail: handle.tail, stdout: handle.stdout, logFile: handle.logFile };
}
