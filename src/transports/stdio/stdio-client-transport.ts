/**
 * The client side of stdio: spawn a server process and talk JSON-RPC over its stdin/stdout.
 */
import type { ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import type { PassThrough } from 'node:stream';
import { ConnectionClosedError } from '../../core/errors.js';
import { Inbox } from '../../core/inbox.js';
import type { JsonRpcMessage } from '../../core/jsonrpc.js';
import type { SendOptions, Transport } from '../../core/transport.js';
import { childExitError, relayToStderr, shortCommand } from './child-exit.js';
import { StderrTail } from './stderr-tail.js';
import { defaultChildEnvironment } from './child-environment.js';
import {
  DEFAULT_CLOSE_GRACE_MS,
  DEFAULT_KILL_GRACE_MS,
  type StdioClientTransportOptions,
} from './stdio-client-options.js';
import { MessageReader } from './message-reader.js';
import { MessageWriter } from './message-writer.js';
import { terminateChild } from './terminate-child.js';

export {
  DEFAULT_CLOSE_GRACE_MS,
  DEFAULT_KILL_GRACE_MS,
  type StdioClientTransportOptions,
} from './stdio-client-options.js';

type ChildProcessModule = typeof import('node:child_process');
type StreamModule = typeof import('node:stream');
let childProcessModule: ChildProcessModule | undefined;
let streamModule: StreamModule | undefined;

/**
 * `node:child_process` and `node:stream`, loaded on the first spawn: every stdio server imports
 * this module (through `keel-mcp/stdio`) and never spawns anything, and an ES import of a builtin
 * costs start-up time (~2 ms for child_process, ~0.8 ms for stream's ESM facade).
 */
function childProcess(): ChildProcessModule {
  return (childProcessModule ??= createRequire(import.meta.url)('node:child_process') as ChildProcessModule);
}

function stream(): StreamModule {
  return (streamModule ??= createRequire(import.meta.url)('node:stream') as StreamModule);
}

// After the child exits (or closes its stdout) wait this long for the other half to arrive: the
// last lines on stdout are still delivered, and the exit status becomes the `cause` of failures.
const EXIT_SETTLE_MS = 100;
// ...and, after that, this much longer for the end of stderr (its last lines go into the exit
// error). It is normally there at once; a loaded machine, or a grandchild holding the pipe, may
// delay it: bounded, so a dead child's requests still fail promptly.
const STDERR_SETTLE_MS = 500;

/**
 * A {@link Transport} to a server running as a child process.
 *
 * - The child is spawned on first use (iteration or `send`), or by {@link start}.
 * - When the child exits or fails to spawn (e.g. `ENOENT`), the iteration ends at once, so every
 *   pending request fails with `ConnectionClosedError`; the exit status or spawn error is
 *   {@link lastError} (and so the `cause` of those errors). An exit names the command, the exit
 *   code or signal and the stderr lines that matter (the last 5, and the error line above them if
 *   there is one; at most 1 KiB; not with `stderr: 'ignore'`), also as the fields `command`,
 *   `exitCode`, `signal`, `stderrTail`.
 * - `close()` closes the child's stdin, waits `closeGraceMs`, sends SIGTERM, waits `killGraceMs`,
 *   sends SIGKILL; it resolves once the child is gone and every pipe is released. Idempotent; an
 *   EPIPE from a child that stopped reading is swallowed.
 *
 * @example
 * const client = new Client({ name: 'cli', version: '1.0.0' });
 * await client.connect(new StdioClientTransport({ command: 'node', args: ['server.js'] }));
 * console.log(await client.request('tools/list', {}));
 * await client.close(); // stdin close → SIGTERM → SIGKILL, as needed
 */
export class StdioClientTransport implements Transport {
  private readonly inbox = new Inbox<unknown>();
  private child: ChildProcess | undefined;
  private reader: MessageReader | undefined;
  private writer: MessageWriter | undefined;
  private closing: Promise<void> | undefined;
  private readonly exited: Promise<void>;
  private markExited!: () => void;
  private settleTimer: ReturnType<typeof setTimeout> | undefined;
  private outputEnded = false;
  private stderrEnded = false;
  private stderrWaited = false;
  private readonly stderrTail: StderrTail | undefined;
  private pipesClosed = false;
  private spawnError: unknown;
  private exitError: Error | undefined;
  private ioError: unknown;
  /** Exit code of the child, once it exited normally. */
  exitCode: number | null = null;
  /** Signal that ended the child, if a signal did. */
  signalCode: NodeJS.Signals | null = null;
  /** The child's stderr when `stderr: 'pipe'` (available before the child starts). */
  readonly stderr: PassThrough | null;

  constructor(private readonly options: StdioClientTransportOptions) {
    this.exited = new Promise((resolve) => {
      this.markExited = resolve;
    });
    this.stderr = options.stderr === 'pipe' ? new (stream().PassThrough)() : null;
    this.stderrTail = options.stderr === 'ignore' ? undefined : new StderrTail();
    const onStderr = options.onStderr;
    if (this.stderr && onStderr) {
      this.stderr.setEncoding('utf8');
      this.stderr.on('data', (text: string) => {
        // A throwing callback must not become an uncaught exception inside a stream event.
        try {
          onStderr(text);
        } catch (error) {
          options.logger?.error('stdio client: onStderr failed', error);
        }
      });
    }
  }

  /**
   * Bytes sent to the child and not yet taken by it: once its stdin pipe is full, later messages
   * wait here for `drain` instead of piling into the pipe's stream (and their `send` promises wait
   * with them).
   */
  get queuedOutputBytes(): number {
    return this.writer?.queuedBytes ?? 0;
  }

  /** The child's process id, once spawned. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  get writable(): boolean {
    if (this.closing) return false;
    return this.writer ? this.writer.writable && this.exitError === undefined : this.spawnError === undefined;
  }

  /** The spawn error, or the exit status as an `Error` (with `exitCode`/`signal`), or an I/O error. */
  get lastError(): unknown {
    return this.spawnError ?? this.exitError ?? this.ioError;
  }

  /** Spawn the child now. Idempotent; does nothing after `close()`. */
  start(): void {
    if (this.child || this.closing || this.spawnError !== undefined) return;
    const options = this.options;
    let child: ChildProcess;
    try {
      child = childProcess().spawn(options.command, options.args ?? [], {
        cwd: options.cwd,
        env: { ...(options.inheritEnv ? process.env : defaultChildEnvironment()), ...options.env },
        // 'inherit' is relayed (below) rather than shared, to keep the tail for the exit message.
        stdio: ['pipe', 'pipe', options.stderr === 'ignore' ? 'ignore' : 'pipe'],
        windowsHide: true,
      });
    } catch (error) {
      this.onSpawnFailed(error);
      return;
    }
    this.child = child;
    child.on('error', this.onChildError);
    child.once('exit', this.onExit);
    child.once('close', () => {
      this.pipesClosed = true;
    });
    this.writer = new MessageWriter(child.stdin!, (error) => {
      this.ioError ??= error;
    });
    this.reader = new MessageReader(child.stdout!, this.inbox, {
      maxMessageBytes: options.maxMessageBytes,
      onEnd: this.onOutputEnd,
    });
    const stderr = child.stderr;
    if (stderr) {
      const tail = this.stderrTail;
      if (tail) stderr.on('data', (chunk: Uint8Array) => tail.push(chunk));
      stderr.once('end', this.onStderrEnd);
      if (this.stderr) stderr.pipe(this.stderr);
      else relayToStderr(stderr);
    }
  }

  send(message: JsonRpcMessage, options?: SendOptions): Promise<void> {
    this.start();
    if (!this.writer || !this.writable) {
      return Promise.reject(
        new ConnectionClosedError('The server process is not running', { cause: this.lastError }),
      );
    }
    return this.writer.send(message, options?.relatedRequestId);
  }

  /** Close stdin, then escalate (SIGTERM, SIGKILL) until the child is gone. Idempotent. */
  close(): Promise<void> {
    return (this.closing ??= this.shutdown());
  }

  [Symbol.asyncIterator](): AsyncIterator<unknown> {
    this.start();
    return this.inbox;
  }

  private async shutdown(): Promise<void> {
    void this.inbox.return();
    const child = this.child;
    if (child && child.pid !== undefined && this.exitError === undefined) {
      // Keep emptying stdout: a child blocked writing to a full pipe could never see EOF on stdin.
      this.reader?.discardRest();
      this.writer?.end();
      const gone = await terminateChild(child, this.exited, {
        closeGraceMs: this.options.closeGraceMs ?? DEFAULT_CLOSE_GRACE_MS,
        killGraceMs: this.options.killGraceMs ?? DEFAULT_KILL_GRACE_MS,
        onStep: (step) => this.options.logger?.debug(`stdio client: ${step} (pid ${child.pid})`),
      });
      if (!gone) this.options.logger?.error(`stdio client: process ${child.pid} did not exit after SIGKILL`);
    }
    // Let the pipes deliver what the child wrote last (stderr especially); a grandchild that
    // inherited them must not keep us waiting, so this is bounded.
    await this.pipesClosedWithin(EXIT_SETTLE_MS);
    // A child that exited on its own: what its stderr said since then belongs in `lastError`.
    if (this.exitError !== undefined) this.exitError = this.describeExit();
    this.release();
  }

  private pipesClosedWithin(ms: number): Promise<void> {
    const child = this.child;
    if (!child || this.pipesClosed) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        child.off('close', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      child.once('close', done);
    });
  }

  /** Drop every pipe and timer, so nothing of the child keeps the event loop alive. */
  private release(): void {
    clearTimeout(this.settleTimer);
    this.settleTimer = undefined;
    this.reader?.detach();
    this.writer?.release();
    const child = this.child;
    if (child) {
      child.stdin?.destroy();
      child.stdout?.destroy();
      if (child.stderr) {
        child.stderr.unpipe();
        child.stderr.destroy();
      }
    }
    this.stderr?.end();
  }

  private onSpawnFailed(error: unknown): void {
    this.spawnError ??= error;
    this.writer?.release();
    this.markExited();
    this.inbox.end();
  }

  private readonly onChildError = (error: unknown): void => {
    // Before `spawn` succeeded the error is the spawn failure; afterwards it is a failed kill().
    if (this.child?.pid === undefined) this.onSpawnFailed(error);
    else this.options.logger?.debug('stdio client: child process error', error);
  };

  private readonly onExit = (code: number | null, signal: NodeJS.Signals | null): void => {
    this.exitCode = code;
    this.signalCode = signal;
    this.exitError = this.describeExit();
    this.markExited();
    this.endWhenSettled();
  };

  private readonly onStderrEnd = (): void => {
    this.stderrEnded = true;
    if (this.exitError !== undefined && !this.inbox.done) this.endWhenSettled();
  };

  /** After an exit: end the input once stdout (and stderr, for its last lines) ended, or soon. */
  private endWhenSettled(): void {
    if (this.outputEnded && (this.stderrEnded || this.stderrTail === undefined)) this.endInput();
    else this.settleTimer ??= setTimeout(this.endInput, EXIT_SETTLE_MS);
  }

  private describeExit(): Error {
    const command = shortCommand(this.options.command, this.options.args ?? []);
    return childExitError(command, this.exitCode, this.signalCode, this.stderrTail?.text());
  }

  private readonly onOutputEnd = (error?: unknown): void => {
    if (error !== undefined) this.ioError ??= error;
    this.outputEnded = true;
    if (this.spawnError !== undefined) this.endInput();
    else if (this.exitError !== undefined) this.endWhenSettled();
    else this.settleTimer ??= setTimeout(this.endInput, EXIT_SETTLE_MS);
  };

  private readonly endInput = (): void => {
    clearTimeout(this.settleTimer);
    this.settleTimer = undefined;
    if (this.exitError !== undefined && this.stderrTail && !this.stderrEnded && !this.stderrWaited) {
      this.stderrWaited = true;
      this.settleTimer = setTimeout(this.endInput, STDERR_SETTLE_MS);
      return;
    }
    // The stderr read since the exit belongs in the message: the failures made from here on see it.
    if (this.exitError !== undefined && !this.inbox.done) this.exitError = this.describeExit();
    this.inbox.end();
  };
}
