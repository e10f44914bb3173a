/**
 * Ending a child process the polite way first: close its stdin, then SIGTERM, then SIGKILL.
 */
import type { ChildProcess } from 'node:child_process';

/** @example await terminateChild(child, exited, { closeGraceMs: 2_000, killGraceMs: 2_000 }); */
export interface TerminateOptions {
  /** How long to wait for the child to exit on its own once its stdin is closed. */
  closeGraceMs: number;
  /** How long to wait after SIGTERM before SIGKILL, and after SIGKILL before giving up. */
  killGraceMs: number;
  /** Told about each escalation step. */
  onStep?: (step: 'SIGTERM' | 'SIGKILL' | 'gave-up') => void;
}

/**
 * Wait for `exited` (which settles when the child's `exit` event fired); escalate to SIGTERM and
 * then SIGKILL when it does not come within the grace periods. The caller has already closed the
 * child's stdin. Resolves `true` once the child is gone, `false` if even SIGKILL did not end it in
 * time. Every timer it starts is cleared before it resolves.
 *
 * @example
 * child.stdin.end();
 * await terminateChild(child, exited, { closeGraceMs: 2_000, killGraceMs: 2_000 });
 */
export async function terminateChild(
  child: ChildProcess,
  exited: Promise<void>,
  options: TerminateOptions,
): Promise<boolean> {
  if (await settlesWithin(exited, options.closeGraceMs)) return true;
  options.onStep?.('SIGTERM');
  child.kill('SIGTERM');
  if (await settlesWithin(exited, options.killGraceMs)) return true;
  options.onStep?.('SIGKILL');
  child.kill('SIGKILL');
  if (await settlesWithin(exited, options.killGraceMs)) return true;
  options.onStep?.('gave-up');
  return false;
}

function settlesWithin(promise: Promise<void>, ms: number): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), Math.max(0, ms));
    void promise.then(() => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}
