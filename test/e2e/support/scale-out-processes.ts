/**
 * Processes of `dist/examples/scale-out-server.js` on one Redis, for the scale-out tests and the
 * scale-out bench: each on 127.0.0.1 and a free port, its JSON stdout events collected, stoppable
 * gracefully (SIGTERM) or killed for real (SIGKILL: no shutdown code runs).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { within } from '../../helpers/guard.js';

export const SCALE_OUT_SERVER = 'dist/examples/scale-out-server.js';

/** One stdout event line of the server (`{"event":"slow-aborted","tag":...}`). */
export interface ServerEvent {
  event: string;
  pid: number;
  [key: string]: unknown;
}

export interface ScaleOutProcess {
  readonly url: string;
  readonly port: number;
  readonly pid: number;
  readonly child: ChildProcess;
  readonly events: ServerEvent[];
  /** Resolves with the first event matching `match` (already seen or still to come), bounded. */
  waitForEvent(match: (event: ServerEvent) => boolean, ms?: number): Promise<ServerEvent>;
  /** What the process wrote on stderr (for failure messages). */
  stderr(): string;
  /** SIGTERM (graceful); SIGKILL after `ms`. Resolves once the process is gone. Idempotent. */
  stop(ms?: number): Promise<void>;
  /** SIGKILL now; resolves once the process is gone. Idempotent. */
  kill(): Promise<void>;
}

/**
 * Start one process of `script` (default the scale-out server; any server that prints its URL on
 * its first stdout line) on a free port (`PORT=0`) with `env` added; resolves once it listens.
 */
export async function spawnScaleOutServer(
  env: Record<string, string>,
  script = SCALE_OUT_SERVER,
): Promise<ScaleOutProcess> {
  if (!existsSync(script)) throw new Error(`${script} is missing: run \`npm run build\` first`);
  const child = spawn(process.execPath, [script], {
    env: { ...process.env, PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const gone = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const events: ServerEvent[] = [];
  const waiters = new Set<{
    match: (event: ServerEvent) => boolean;
    resolve: (event: ServerEvent) => void;
  }>();
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  let resolveUrl!: (url: string) => void;
  const url = new Promise<string>((resolve, reject) => {
    resolveUrl = resolve;
    child.once('close', (code, signal) =>
      reject(new Error(`${script} exited (${code ?? signal}) before listening: ${stderr}`)),
    );
  });
  let pending = '';
  let first = true;
  child.stdout.setEncoding('utf8').on('data', (text: string) => {
    pending += text;
    let newline: number;
    while ((newline = pending.indexOf('\n')) >= 0) {
      const line = pending.slice(0, newline).trim();
      pending = pending.slice(newline + 1);
      if (first) {
        first = false;
        resolveUrl(line);
        continue;
      }
      let parsed: ServerEvent;
      try {
        parsed = JSON.parse(line) as ServerEvent;
      } catch {
        continue;
      }
      events.push(parsed);
      for (const waiter of [...waiters]) {
        if (waiter.match(parsed)) {
          waiters.delete(waiter);
          waiter.resolve(parsed);
        }
      }
    }
  });
  const running = (): boolean => child.exitCode === null && child.signalCode === null;
  const kill = async (): Promise<void> => {
    if (running()) child.kill('SIGKILL');
    await within(gone, 5_000, 'scale-out server exit');
  };
  const stop = async (ms = 5_000): Promise<void> => {
    if (running()) child.kill('SIGTERM');
    let timer: ReturnType<typeof setTimeout> | undefined;
    const forced = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        if (running()) child.kill('SIGKILL');
        resolve();
      }, ms);
    });
    await Promise.race([gone, forced]);
    clearTimeout(timer);
    await within(gone, 5_000, 'scale-out server exit');
  };
  try {
    const listening = await within(url, 15_000, 'scale-out server URL');
    return {
      url: listening,
      port: Number(new URL(listening).port),
      pid: child.pid!,
      child,
      events,
      waitForEvent(match, ms = 5_000) {
        const seen = events.find(match);
        if (seen) return Promise.resolve(seen);
        let waiter!: { match: (event: ServerEvent) => boolean; resolve: (event: ServerEvent) => void };
        const found = new Promise<ServerEvent>((resolve) => {
          waiter = { match, resolve };
          waiters.add(waiter);
        });
        return within(found, ms, 'server event').finally(() => waiters.delete(waiter));
      },
      stderr: () => stderr,
      stop,
      kill,
    };
  } catch (error) {
    await kill();
    throw error;
  }
}
