/**
 * A raw stdio peer for `keel doctor`: it spawns the server, writes JSON-RPC lines by hand and
 * records every line the server writes, so a check sees exactly what is on the wire (a second
 * answer, a line after EOF, text that is not JSON). Every wait is bounded; `dispose` kills what
 * is left.
 */
import { spawn, type ChildProcess } from 'node:child_process';

/** One line the server wrote on stdout, parsed (undefined when it is not JSON). */
export interface Line {
  readonly text: string;
  readonly message: Record<string, unknown> | undefined;
  /** When it arrived, ms since the process started. */
  readonly at: number;
}

/** Bound on waiting for the process to go after the checks are done. */
const KILL_AFTER_MS = 2_000;

/**
 * @example
 * const peer = StdioPeer.start(['node', 'server.js']);
 * peer.send({ jsonrpc: '2.0', id: 1, method: 'ping' });
 * const answer = await peer.waitFor((m) => m.id === 1, 5_000);
 */
export class StdioPeer {
  readonly lines: Line[] = [];
  stderr = '';
  /** Exit code and signal, once the process ended. */
  exit: { code: number | null; signal: NodeJS.Signals | null; at: number } | undefined;
  /** When stdin was ended (ms since start), if it was. */
  eofAt: number | undefined;
  private readonly started = Date.now();
  private readonly waiters = new Set<() => void>();
  private readonly exited: Promise<void>;
  private spawnError: Error | undefined;

  private constructor(readonly child: ChildProcess) {
    let pending = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      pending += chunk;
      let newline: number;
      while ((newline = pending.indexOf('\n')) >= 0) {
        this.push(pending.slice(0, newline).replace(/\r$/, ''));
        pending = pending.slice(newline + 1);
      }
      // A server that never ends its lines still must not grow doctor without bound.
      if (pending.length > 8 * 1024 * 1024) pending = '';
    });
    child.stdout!.on('error', () => {});
    child.stdin!.on('error', () => {});
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      if (this.stderr.length < 64 * 1024) this.stderr += chunk;
    });
    child.once('error', (error) => {
      this.spawnError = error;
    });
    this.exited = new Promise((resolve) =>
      child.once('close', (code, signal) => {
        this.exit = { code, signal, at: this.now() };
        this.wake();
        resolve();
      }),
    );
  }

  static start(command: readonly string[]): StdioPeer {
    const child = spawn(command[0]!, command.slice(1), { stdio: ['pipe', 'pipe', 'pipe'] });
    return new StdioPeer(child);
  }

  now(): number {
    return Date.now() - this.started;
  }

  get failedToSpawn(): Error | undefined {
    return this.spawnError;
  }

  private push(text: string): void {
    if (text.trim() === '') return;
    let message: Record<string, unknown> | undefined;
    try {
      const parsed: unknown = JSON.parse(text);
      message =
        typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : undefined;
      if (Array.isArray(parsed)) message = { batch: parsed };
    } catch {
      message = undefined;
    }
    this.lines.push({ text, message, at: this.now() });
    this.wake();
  }

  private wake(): void {
    for (const waiter of [...this.waiters]) waiter();
  }

  /** Write one message (or raw text) as a line. False when stdin is closed. */
  send(message: unknown): boolean {
    const stdin = this.child.stdin!;
    if (stdin.destroyed || stdin.writableEnded) return false;
    stdin.write(typeof message === 'string' ? `${message}\n` : `${JSON.stringify(message)}\n`);
    return true;
  }

  /** The messages received so far. */
  messages(): Record<string, unknown>[] {
    return this.lines.flatMap((line) => (line.message ? [line.message] : []));
  }

  /** The first message from `from` on matching `match`, or undefined after `ms` (or at exit). */
  waitFor(
    match: (message: Record<string, unknown>) => boolean,
    ms: number,
    from = 0,
  ): Promise<Record<string, unknown> | undefined> {
    return new Promise((resolve) => {
      const check = (): boolean => {
        const found = this.lines.slice(from).find((line) => line.message && match(line.message));
        if (found || this.exit) {
          done(found?.message);
          return true;
        }
        return false;
      };
      const done = (value: Record<string, unknown> | undefined): void => {
        clearTimeout(timer);
        this.waiters.delete(waiter);
        resolve(value);
      };
      const waiter = (): void => void check();
      const timer = setTimeout(() => done(undefined), ms);
      this.waiters.add(waiter);
      check();
    });
  }

  /** Resolves true once the process exited, false after `ms`. */
  waitExit(ms: number): Promise<boolean> {
    return Promise.race([
      this.exited.then(() => true),
      new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), ms);
        void this.exited.then(() => clearTimeout(timer));
      }),
    ]);
  }

  /** Wait `ms` (lines keep arriving meanwhile). */
  pause(ms: number): Promise<void> {
    return new Promise((resolve) => setTimeout(resolve, ms));
  }

  /** End stdin: what a client does when it goes away. */
  endInput(): void {
    if (this.eofAt === undefined) this.eofAt = this.now();
    this.child.stdin!.end();
  }

  /** Stop reading the server's stdout (the client closed its end of the pipe). */
  closeOutput(): void {
    this.child.stdout!.destroy();
  }

  /** End stdin, give the process a moment, then kill it; resolves once it is gone. */
  async dispose(): Promise<void> {
    if (this.exit) return;
    this.endInput();
    if (await this.waitExit(KILL_AFTER_MS)) return;
    this.child.kill('SIGKILL');
    await this.waitExit(KILL_AFTER_MS);
  }
}
