/**
 * How long a command may take: `--timeout` (one deadline for connecting and every request of the
 * command), or the defaults when it is not given.
 */

/** The largest `--timeout` (what `setTimeout` can wait: about 24.8 days). */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;
const UNIT_MS = { ms: 1, s: 1_000, m: 60_000 } as const;

/**
 * Per-request limits. With `--timeout`, none: the command's {@link Deadline} bounds everything.
 * Otherwise, with a person at the terminal, no limit either: they may take minutes over an
 * elicitation form (in the handshake era the call's own timer runs meanwhile; the client cannot
 * pause it) and can always press Ctrl+C. Without a terminal, the client's defaults (60 s idle,
 * 10 min in all), so a script never hangs.
 *
 * @example
 * requestLimits(true, undefined); // { timeoutMs: Infinity, maxTotalTimeoutMs: Infinity }
 */
export function requestLimits(
  interactive: boolean,
  timeout: number | undefined,
): { timeoutMs?: number; maxTotalTimeoutMs?: number } {
  return interactive || timeout !== undefined ? { timeoutMs: Infinity, maxTotalTimeoutMs: Infinity } : {};
}

/**
 * `--timeout`'s value in milliseconds: a number of seconds (`30`, `1.5`), or a number with a unit
 * (`500ms`, `30s`, `2m`). `undefined` when it is not one, is 0 or is too large.
 *
 * @example
 * parseDuration('30'); // 30000
 * parseDuration('250ms'); // 250
 */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?|\.\d+)(ms|s|m)?$/.exec(text.trim());
  if (!match) return undefined;
  const ms = Math.ceil(Number(match[1]) * UNIT_MS[(match[2] ?? 's') as keyof typeof UNIT_MS]);
  return ms >= 1 && ms <= MAX_TIMEOUT_MS ? ms : undefined;
}

/**
 * A duration for messages: `250 ms`, `30 s`, `1.5 s`.
 *
 * @example
 * formatDuration(1500); // '1.5 s'
 */
export function formatDuration(ms: number): string {
  if (ms < 1_000) return `${ms} ms`;
  const seconds = ms / 1_000;
  return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} s`;
}

/**
 * The command's `--timeout`: its signal aborts when the time is up (never without a limit).
 *
 * @example
 * const deadline = new Deadline(30_000);
 * await client.callTool('slow', {}, { signal: deadline.signal });
 * deadline.dispose();
 */
export class Deadline {
  private readonly controller = new AbortController();
  private readonly timer: ReturnType<typeof setTimeout> | undefined;

  constructor(readonly ms: number | undefined) {
    if (ms !== undefined) {
      this.timer = setTimeout(
        () => this.controller.abort(new Error(`keel: --timeout of ${formatDuration(ms)} reached`)),
        ms,
      );
    }
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get expired(): boolean {
    return this.controller.signal.aborted;
  }

  dispose(): void {
    clearTimeout(this.timer);
  }
}
