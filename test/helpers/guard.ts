/**
 * Process-level guards for lifecycle tests: what must NOT happen.
 *
 * Usage in a test file:
 *   const guard = useProcessGuard();   // at top level: installs beforeEach/afterEach
 * Each test then fails if an `unhandledRejection` or `uncaughtException` happened during it, or if
 * it left a handle or timer open (compared with the resources open when the test started).
 * Unref'd timers are seen too: `process.getActiveResourcesInfo()` omits them, so the guard tracks
 * every `Timeout` created during the test (an async_hooks init hook, on only while a test runs).
 */
import { createHook } from 'node:async_hooks';
import { afterEach, beforeEach, expect } from 'vitest';

export interface ProcessGuard {
  /** Events seen during the current test. */
  readonly unhandled: unknown[];
  readonly uncaught: unknown[];
  /** Skip the open-handle check for the current test (say why in the test). */
  allowOpenHandles(): void;
}

function resourceCounts(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const name of process.getActiveResourcesInfo()) counts.set(name, (counts.get(name) ?? 0) + 1);
  return counts;
}

/** Resources that are still open, by type, compared with `before`. */
export function leakedResources(before: Map<string, number>): string[] {
  const leaked: string[] = [];
  for (const [name, count] of resourceCounts()) {
    const extra = count - (before.get(name) ?? 0);
    if (extra > 0) leaked.push(`${name} x${extra}`);
  }
  return leaked;
}

/** Node's Timeout object, as the init hook hands it over. */
interface TimeoutResource {
  hasRef(): boolean;
  _destroyed?: boolean;
  _idleTimeout?: number;
}

/**
 * Tracks the `Timeout`s created while it is started. Only the init hook is installed (no destroy
 * hook): whether a timer is still pending is read from the timer itself at the end.
 */
export class TimerTracker {
  private readonly timers = new Set<TimeoutResource>();
  private readonly hook = createHook({
    init: (_id, type, _trigger, resource) => {
      // A Timeout born unref'd comes from Node itself (`setUnrefTimeout`: the HTTP Date-header
      // cache, ...): public APIs only create ref'd ones. Those are process-wide, not a test's leak.
      if (type === 'Timeout' && (resource as TimeoutResource).hasRef()) {
        this.timers.add(resource as TimeoutResource);
      }
    },
  });

  start(): void {
    this.timers.clear();
    this.hook.enable();
  }

  stop(): void {
    this.hook.disable();
  }

  /** Unref'd timers created since `start()` that are still pending (ref'd ones are counted by Node). */
  unrefLeft(): string[] {
    const left: string[] = [];
    for (const timer of this.timers) {
      if (timer._destroyed !== false) {
        this.timers.delete(timer);
      } else if (!timer.hasRef()) {
        left.push(`unref'd Timeout (${String(timer._idleTimeout)} ms)`);
      }
    }
    return left;
  }
}

/**
 * Wait (bounded) until no resource beyond `before` is open (and, with `timers`, no unref'd timer
 * created during the test is pending); returns what is still open.
 */
export async function waitForNoLeaks(
  before: Map<string, number>,
  timeoutMs = 2_000,
  timers?: TimerTracker,
): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    // Let close callbacks and socket teardown run.
    await new Promise((resolve) => setImmediate(resolve));
    const leaked = leakedResources(before).filter((name) => !name.startsWith('Immediate'));
    if (timers) leaked.push(...timers.unrefLeft());
    if (leaked.length === 0 || Date.now() > deadline) return leaked;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export function useProcessGuard(): ProcessGuard {
  const unhandled: unknown[] = [];
  const uncaught: unknown[] = [];
  let before = new Map<string, number>();
  let skipHandles = false;
  const timers = new TimerTracker();
  const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
  const onUncaught = (error: unknown): void => void uncaught.push(error);

  beforeEach(() => {
    unhandled.length = 0;
    uncaught.length = 0;
    skipHandles = false;
    process.on('unhandledRejection', onUnhandled);
    process.on('uncaughtException', onUncaught);
    before = resourceCounts();
    timers.start();
  });

  // Two after-hooks. Vitest runs after-hooks in reverse order (sequence.hooks 'stack', the
  // default), so the second one registered runs first: it stops tracking before the checking
  // hook starts, because vitest arms each hook's own (unref'd) timeout timer just before running
  // it, and the checking hook's timer must not count as the test's leak. The stopping hook's timer
  // is cleared when it returns.
  afterEach(async () => {
    timers.stop();
    // 3 s: the official SDK's StdioClientTransport.close() leaves a 2 s unref'd timer behind (its
    // race against the child's exit); on a loaded machine a 2 s wait could end before it fires.
    const leaked = skipHandles ? [] : await waitForNoLeaks(before, 3_000, timers);
    // Give a stray rejection one more turn to surface before judging.
    await new Promise((resolve) => setImmediate(resolve));
    process.off('unhandledRejection', onUnhandled);
    process.off('uncaughtException', onUncaught);
    expect(unhandled, 'unhandledRejection during the test').toEqual([]);
    expect(uncaught, 'uncaughtException during the test').toEqual([]);
    expect(leaked, 'handles or timers left open by the test').toEqual([]);
  });
  afterEach(() => {
    timers.stop();
  });

  return {
    unhandled,
    uncaught,
    allowOpenHandles() {
      skipHandles = true;
    },
  };
}

/** Reject if `promise` does not settle within `ms` (every wait in a test is bounded). */
export function within<T>(promise: Promise<T>, ms = 5_000, what = 'operation'): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not settle within ${ms} ms`)), ms);
  });
  return Promise.race([promise, limit]).finally(() => clearTimeout(timer));
}
