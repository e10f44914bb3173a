/**
 * Ctrl+C for a running command: the first press aborts the command's signal (the client cancels
 * the request on the wire), the second exits at once.
 *
 * On a terminal, stdin is put in raw mode while a command runs, so Ctrl+C arrives here as a byte
 * instead of a SIGINT to the whole foreground process group: a stdio server spawned by `keel` is in
 * that group, and would otherwise be killed by the same key press before it could see the cancel.
 */

/**
 * @example
 * const ctrlC = new CtrlC({ first: () => console.error('cancelling…'), second: () => process.exit(130) });
 * ctrlC.install();
 * await client.callTool('slow', {}, { signal: ctrlC.signal });
 * ctrlC.dispose();
 */
export class CtrlC {
  private readonly controller = new AbortController();
  private presses = 0;
  private listening = false;
  private readonly stdin: NodeJS.ReadStream;

  constructor(
    private readonly hooks: { first(): void; second(): void },
    stdin: NodeJS.ReadStream = process.stdin,
  ) {
    this.stdin = stdin;
  }

  /** Aborted by the first Ctrl+C. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Start listening (SIGINT always; raw-mode stdin on a terminal). */
  install(): void {
    process.on('SIGINT', this.press);
    this.resume();
  }

  /** Stop reading stdin (a prompt takes it over; its own Ctrl+C answers the prompt). */
  suspend(): void {
    if (!this.listening) return;
    this.listening = false;
    this.stdin.off('data', this.onData);
    this.stdin.pause();
  }

  /** Read stdin again after a prompt (which left raw mode). */
  resume(): void {
    if (this.listening || !this.stdin.isTTY) return;
    this.listening = true;
    this.stdin.setRawMode(true);
    this.stdin.on('data', this.onData);
    this.stdin.resume();
  }

  dispose(): void {
    process.off('SIGINT', this.press);
    if (this.stdin.isTTY) {
      this.suspend();
      this.stdin.setRawMode(false);
    }
  }

  private readonly onData = (chunk: Buffer | string): void => {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    for (const byte of bytes) if (byte === 0x03) this.press();
  };

  private readonly press = (): void => {
    this.presses += 1;
    if (this.presses === 1) {
      this.controller.abort();
      this.hooks.first();
    } else {
      this.hooks.second();
    }
  };
}
