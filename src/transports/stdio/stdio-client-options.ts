/**
 * The options of `StdioClientTransport` and their defaults.
 */
import type { Logger } from '../../core/engine/connection.js';

/**
 * Default wait for the child to exit after its stdin is closed, before SIGTERM.
 *
 * @example
 * new StdioClientTransport({ command: 'node', args: ['server.js'], closeGraceMs: DEFAULT_CLOSE_GRACE_MS * 5 });
 */
export const DEFAULT_CLOSE_GRACE_MS = 2_000;
/**
 * Default wait for the child to exit after SIGTERM, before SIGKILL.
 *
 * @example
 * new StdioClientTransport({ command: 'node', args: ['server.js'], killGraceMs: DEFAULT_KILL_GRACE_MS / 2 });
 */
export const DEFAULT_KILL_GRACE_MS = 2_000;

/**
 * @example
 * new StdioClientTransport({ command: 'node', args: ['server.js'], env: { API_KEY }, stderr: 'pipe', onStderr: (t) => log(t) });
 */
export interface StdioClientTransportOptions {
  command: string;
  args?: readonly string[];
  /** Added to the child's environment (on top of {@link defaultChildEnvironment}, or all of `process.env` with `inheritEnv`). */
  env?: Record<string, string>;
  /** Give the child all of `process.env` rather than the safe default subset. Default false. */
  inheritEnv?: boolean;
  cwd?: string;
  /**
   * The child's stderr. `'inherit'` (default): written to this process's stderr (relayed, so that
   * its last lines can name the cause when the child dies). `'pipe'`: readable as
   * {@link StdioClientTransport.stderr} and/or delivered to `onStderr` — consume it, or a chatty
   * child blocks once the pipe is full. `'ignore'`: discarded.
   */
  stderr?: 'inherit' | 'pipe' | 'ignore' | undefined;
  /** With `stderr: 'pipe'`: called with each chunk of the child's stderr (UTF-8). */
  onStderr?: ((text: string) => void) | undefined;
  /** Cap on one message from the child, in bytes (default 4 MiB). */
  maxMessageBytes?: number;
  /** `close()`: wait this long for the child to exit after closing its stdin, then SIGTERM. Default 2000. */
  closeGraceMs?: number;
  /** `close()`: wait this long after SIGTERM, then SIGKILL. Default 2000. */
  killGraceMs?: number;
  /** Debug reports (escalation steps, child errors). Never stdout. */
  logger?: Logger;
}
