/**
 * Feedback while a server keeps quiet: a server that never answers (`keel tools -- sleep 30`)
 * would otherwise leave the terminal blank until a timeout. After a short wait with nothing from
 * the server (no answer, progress, log line or request), one line on stderr says what `keel` is
 * waiting for and how to stop or bound it.
 */

/** How long the server may keep quiet before the line is printed. */
export const WAIT_NOTICE_MS = 1_500;

/**
 * @example
 * const notice = new WaitNotice((line) => process.stderr.write(`${line}\n`), '`node server.js`');
 * notice.waitFor('connecting');   // the line comes after WAIT_NOTICE_MS unless...
 * notice.heard();                 // ...the server answers or sends something first
 * notice.stop();
 */
export class WaitNotice {
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly print: (line: string) => void,
    private readonly server: string,
    private readonly options: { enabled?: boolean; timeoutGiven?: boolean; delayMs?: number } = {},
  ) {}

  /** A new wait begins (`what`: `connecting`, `tools/call echo`, ...): at most one line for it. */
  waitFor(what: string): void {
    this.stop();
    if (this.options.enabled === false) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      const limit = this.options.timeoutGiven ? '' : '; --timeout <seconds> sets a limit';
      this.print(`keel: waiting for ${this.server} to answer (${what})… Ctrl+C stops${limit}`);
    }, this.options.delayMs ?? WAIT_NOTICE_MS);
  }

  /** The server said something: it is alive, so this wait needs no line. */
  heard(): void {
    this.stop();
  }

  stop(): void {
    if (this.timer === undefined) return;
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
