// BENCH_BASELINE=<git ref>: "before and after in the same run". The default Keel server is built
// from that ref in a temporary detached `git worktree` under bench/.work/ (node_modules symlinked
// from the repository root, the ref's own `npm run build`), started by the ref's own package
// scripts, and measured as one more setup, `keelBefore`, interleaved with the others in every
// phase the default Keel setup runs. Comparing two separate runs would mix the load of two moments;
// here both builds see the same machine in the same rounds, and the report pairs them per
// repetition. The worktree is removed at the end of the run, also on failure or interrupt.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, lstatSync, readFileSync, rmSync, symlinkSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { scriptFile } from './setups.mjs';

export const BASELINE_KEY = 'keelBefore';

/** The package scripts the default Keel setup starts, per phase (as in setups.mjs). */
const PHASE_SCRIPTS = {
  stdio: 'bench:stdio',
  http: 'bench:http',
  stateless: 'bench:http-stateless',
  modern: 'bench:http',
};

/**
 * The baseline setup's report entry (label and description); `files` adds the phase files when it
 * is to be run. `--report-only` rebuilds it from the run's saved `info.baseline`.
 *
 * @example
 * baselineSetup({ ref: 'main~3', short: '4ec650b' }).label; // 'Keel before (4ec650b)'
 */
export function baselineSetup({ ref, short }, files = {}) {
  const refText = ref === short ? `\`${short}\`` : `\`${ref}\` (${short})`;
  return {
    key: BASELINE_KEY,
    label: `Keel before (${short})`,
    what: `the default Keel server built from ${refText} (BENCH_BASELINE): a temporary detached \`git worktree\` of that commit under \`bench/.work/\`, built there by its own \`npm run build\` and started by its own \`bench:stdio\` / \`bench:http\` / \`bench:http-stateless\` scripts; interleaved with the other setups in the same rounds, so before and after see the same load`,
    memory: true,
    ...files,
  };
}

function git(root, ...args) {
  return execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

/**
 * Removes the baseline worktree at `dir` (its node_modules symlink first, so nothing can follow it
 * into the repository's own node_modules) and forgets it in git. Synchronous, so it can run from a
 * signal handler; never throws.
 */
export function removeBaseline(root, dir) {
  try {
    const modules = join(dir, 'node_modules');
    if (lstatSync(modules, { throwIfNoEntry: false })?.isSymbolicLink()) unlinkSync(modules);
  } catch {
    // Already gone.
  }
  try {
    if (existsSync(dir)) git(root, 'worktree', 'remove', '--force', dir);
  } catch {
    // Not a registered worktree (an interrupted earlier run): the directory is removed below.
  }
  rmSync(dir, { recursive: true, force: true });
  try {
    git(root, 'worktree', 'prune');
  } catch {
    // Nothing to prune.
  }
}

/**
 * Runs the ref's `npm run build` in `dir`, in a process group of its own so that `cleanup` can stop
 * the whole build (npm, its shell, tsc) if the run is interrupted meanwhile.
 */
function build(dir, timeoutMs, running) {
  return new Promise((resolve, reject) => {
    const child = spawn('npm', ['run', '--silent', 'build'], {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    running.child = child;
    let output = '';
    const keep = (chunk) => {
      output = (output + chunk).slice(-4000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const timer = setTimeout(() => stopGroup(child), timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      running.child = undefined;
      reject(error);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      running.child = undefined;
      if (code === 0) resolve();
      else {
        const tail = output.trim().split('\n').slice(-5).join(' | ');
        reject(new Error(`npm run build exited (${code ?? signal})${tail ? `: ${tail}` : ''}`));
      }
    });
  });
}

function stopGroup(child) {
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

/**
 * Checks `ref` out under bench/.work/baseline-<short sha>, builds it and resolves to the setup to
 * run (`setup`), what the report keeps (`info`: ref, sha, short) and `cleanup`. `onCleanup`
 * receives `cleanup` (synchronous, idempotent: stops a build still running, removes the worktree)
 * before anything is created, so the caller can run it on a signal; on any failure the worktree is
 * removed before the error is thrown.
 *
 * @example
 * const baseline = await prepareBaseline(root, '4ec650b', { log, onCleanup: (c) => process.once('SIGINT', c) });
 * try { ... } finally { baseline.cleanup(); }
 */
export async function prepareBaseline(
  root,
  ref,
  { log = () => {}, onCleanup = () => {}, timeoutMs = 600_000 } = {},
) {
  let sha;
  try {
    sha = git(root, 'rev-parse', '--verify', '--quiet', `${ref}^{commit}`);
  } catch {
    throw new Error(`BENCH_BASELINE=${ref} does not name a commit of this repository`);
  }
  const short = git(root, 'rev-parse', '--short=7', sha);
  const dir = join(root, 'bench', '.work', `baseline-${short}`);
  const running = { child: undefined };
  let removed = false;
  const cleanup = () => {
    if (removed) return;
    removed = true;
    if (running.child) stopGroup(running.child);
    removeBaseline(root, dir);
  };
  onCleanup(cleanup);
  // A worktree left by an interrupted earlier run of the same ref.
  removeBaseline(root, dir);
  try {
    log(`baseline: worktree of ${ref} (${short}) in ${dir}`);
    git(root, 'worktree', 'add', '--detach', dir, sha);
    symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
    log('baseline: npm run build');
    await build(dir, timeoutMs, running);
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    const files = {};
    for (const [phase, name] of Object.entries(PHASE_SCRIPTS)) {
      // A ref without one of the scripts is not measured in that phase.
      if (!pkg.scripts?.[name]) continue;
      const file = scriptFile(dir, pkg, name);
      if (!existsSync(file)) throw new Error(`${name} names ${file}, which the build did not write`);
      files[phase] = file;
    }
    const info = { ref, sha, short };
    return { setup: baselineSetup(info, files), info, dir, cleanup };
  } catch (error) {
    cleanup();
    const stderr = error?.stderr ? String(error.stderr).trim().split('\n').slice(-5).join(' | ') : '';
    throw new Error(`baseline ${ref}: ${error?.message ?? error}${stderr ? ` (${stderr})` : ''}`, {
      cause: error,
    });
  }
}
