/**
 * How long a command's requests may take.
 */

/**
 * `--timeout` when given. Otherwise, with a person at the terminal, no limit: they may take
 * minutes over an elicitation form (in the handshake era the call's own timer runs meanwhile; the
 * client cannot pause it) and can always press Ctrl+C. Without a terminal, the client's defaults
 * (60 s idle, 10 min in all), so a script never hangs.
 *
 * @example
 * requestLimits(true, undefined); // { timeoutMs: Infinity, maxTotalTimeoutMs: Infinity }
 */
export function requestLimits(
  interactive: boolean,
  timeout: number | undefined,
): { timeoutMs?: number; maxTotalTimeoutMs?: number } {
  if (timeout !== undefined) return { timeoutMs: timeout };
  return interactive ? { timeoutMs: Infinity, maxTotalTimeoutMs: Infinity } : {};
}
