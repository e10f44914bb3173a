/**
 * The status area on stderr: a live progress bar redrawn in place on a terminal (plain lines
 * otherwise), and lines (logs, the server's stderr) printed above it without breaking it.
 *
 * Why not @clack/prompts' `progress()`: while it runs it puts stdin in raw mode and calls
 * `process.exit(0)` on Ctrl+C, which would skip the cancellation on the wire and exit 0.
 */
import { safeText } from './safe-text.js';
import type { Progress } from '../core/engine/outbound.js';

const WIDTH = 24;

/** What the status area writes to (stderr, or a fake in tests). */
export interface StatusOutput {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

/**
 * @example
 * const status = new StatusLine(process.stderr);
 * status.progress({ progress: 5, total: 10, message: 'halfway' }); // ████████████░░░░░░░░░░░░  50% halfway
 * status.print('a log line'); // above the bar
 * status.clear();
 */
export class StatusLine {
  private bar: string | undefined;
  private lastPlain: string | undefined;

  constructor(
    private readonly out: StatusOutput,
    private readonly enabled = true,
  ) {}

  /** Show a `notifications/progress` (a bar with a percentage when `total` is known). */
  progress(update: Progress): void {
    if (!this.enabled) return;
    const text = progressText({
      ...update,
      ...(update.message === undefined ? {} : { message: safeText(update.message) }),
    });
    if (!this.out.isTTY) {
      // Plain lines for logs and pipes, one per change.
      if (text.plain !== this.lastPlain) this.out.write(`progress ${text.plain}\n`);
      this.lastPlain = text.plain;
      return;
    }
    this.bar = fit(text.bar, this.out.columns);
    this.out.write(`\r\x1b[2K${this.bar}`);
  }

  /**
   * Show a task's status (`task <id> working: rendering`): one line redrawn in place on a
   * terminal, a plain line per change otherwise.
   */
  task(text: string): void {
    if (!this.enabled) return;
    const line = safeText(text);
    if (!this.out.isTTY) {
      if (line !== this.lastPlain) this.out.write(`${line}\n`);
      this.lastPlain = line;
      return;
    }
    this.bar = fit(line, this.out.columns);
    this.out.write(`\r\x1b[2K${this.bar}`);
  }

  /** Print a whole line above the bar (the bar is redrawn after it). */
  print(line: string): void {
    if (this.bar !== undefined) this.out.write('\r\x1b[2K');
    this.out.write(line.endsWith('\n') ? line : `${line}\n`);
    if (this.bar !== undefined) this.out.write(this.bar);
  }

  /** Remove the bar (before the result prints, or before a prompt). */
  clear(): void {
    if (this.bar === undefined) return;
    this.out.write('\r\x1b[2K');
    this.bar = undefined;
  }
}

/**
 * The bar and the plain-line form of one progress update.
 *
 * @example
 * progressText({ progress: 1, total: 4 }).plain; // '25%'
 */
export function progressText({ progress, total, message }: Progress): { bar: string; plain: string } {
  const suffix = message ? ` ${message}` : '';
  if (typeof total === 'number' && total > 0) {
    const ratio = Math.min(1, Math.max(0, progress / total));
    const filled = Math.round(ratio * WIDTH);
    const percent = `${Math.floor(ratio * 100)}%`;
    return {
      bar: `${'█'.repeat(filled)}${'░'.repeat(WIDTH - filled)} ${percent.padStart(4)}${suffix}`,
      plain: `${percent}${suffix}`,
    };
  }
  return { bar: `… ${progress}${suffix}`, plain: `${progress}${suffix}` };
}

function fit(text: string, columns: number | undefined): string {
  const max = (columns ?? 80) - 1;
  return text.length > max ? text.slice(0, Math.max(0, max)) : text;
}
