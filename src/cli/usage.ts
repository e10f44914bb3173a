/**
 * The CLI's exit codes and its usage error (exit 2, printed with the command's usage line).
 */

/**
 * Exit codes of `keel` (docs/cli.md). `timeout` is 124, as `timeout(1)` uses.
 *
 * @example
 * process.exitCode = EXIT.usage;
 */
export const EXIT = { ok: 0, failure: 1, usage: 2, timeout: 124, interrupted: 130 } as const;

/**
 * A mistake on the command line: printed with the usage line, exit 2.
 *
 * @example
 * throw new UsageError('n: expected integer, got "abc"', 'keel call <server> <tool> [key=value...]');
 */
export class UsageError extends Error {
  override name = 'UsageError';
  constructor(
    message: string,
    readonly usage?: string,
  ) {
    super(message);
  }
}

/**
 * A failure already explained to the user (tool error, server error, connection failure): exit 1.
 *
 * @example
 * throw new CliFailure(`cannot connect to ${url}: ECONNREFUSED`);
 */
export class CliFailure extends Error {
  override name = 'CliFailure';
  constructor(
    message: string,
    readonly exitCode: number = EXIT.failure,
  ) {
    super(message);
  }
}
