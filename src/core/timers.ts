/**
 * Timer helpers shared by the whole SDK: a bounded wait that never leaves its timer behind, and
 * timers that never keep a process alive on their own. Runtime-neutral (`unref` exists on Node,
 * Deno and Bun timers; elsewhere it is skipped).
 */

/**
 * Resolves `true` when `work` settles (either way) within `ms`, else `false` once `ms` passed.
 * The timer is cleared as soon as the race is decided, so a bounded wait never leaks one. A
 * rejection of `work` counts as settled and is not rethrown: the caller only bounds the wait.
 *
 * @example
 * if (!(await within(session.close(), 2_000))) void transport.close(); // past the deadline: cut
 */
export function within(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const limit = new Promise<boolean>((resolve) => {
    timer = setTimeout(resolve, Math.max(0, ms), false);
  });
  const settled = work.then(
    () => true,
    () => true,
  );
  return Promise.race([settled, limit]).finally(() => clearTimeout(timer));
}

/**
 * `timer`, marked so that it does not keep the process running (a sweep, a keep-alive, a
 * retry: background work that must never delay an exit).
 *
 * @example
 * this.timer = unrefTimer(setTimeout(sweep, 1_000, this));
 */
export function unrefTimer<T>(timer: T): T {
  (timer as { unref?: () => void }).unref?.();
  return timer;
}
