/**
 * The compiled `keel` bin in real pseudo-terminals under tmux, for the terminal tests: an isolated
 * tmux server per test file (its own socket), 120x40 panes, screens captured, keys sent, and the
 * raw bytes a pane's program wrote (pipe-pane). tmux must be installed (.ci/run installs it).
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll } from 'vitest';
import { BIN, requireBuiltBin, ROOT, SERVER } from './helpers.js';

const run = promisify(execFile);

/** A shell word. */
export const quote = (arg: string): string => `'${arg.replace(/'/g, `'\\''`)}'`;

/** `node <keel bin> <args> -- node <server> <serverArgs>` as a shell command line. */
export function keelCommand(
  args: readonly string[],
  server = SERVER,
  serverArgs: readonly string[] = [],
): string {
  return [process.execPath, BIN, ...args, '--', process.execPath, server, ...serverArgs].map(quote).join(' ');
}

/** Poll until `read` returns something `check` accepts (bounded), and return it. */
async function poll<T>(
  read: () => Promise<T>,
  check: (value: T) => boolean,
  what: string,
  ms: number,
): Promise<T> {
  const deadline = Date.now() + ms;
  let value = await read();
  while (!check(value)) {
    if (Date.now() >= deadline) throw new Error(`${what}: not within ${ms} ms. Last seen:\n${String(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    value = await read();
  }
  return value;
}

/**
 * Sets up (and tears down, after the file's tests) one tmux server and a scratch directory.
 *
 * @example
 * const term = useTmux();
 * test('...', async () => { const pane = await term.startKeel(['call', 'ask']); await term.waitFor(pane, (s) => s.includes('Name'), 'the prompt'); });
 */
export function useTmux() {
  const socket = `keel-cli-${process.pid}-${randomUUID().slice(0, 8)}`;
  const work = mkdtempSync(join(tmpdir(), 'keel-cli-tty-'));
  let panes = 0;

  async function tmux(...args: string[]): Promise<string> {
    const { stdout } = await run('tmux', ['-L', socket, '-f', '/dev/null', ...args], {
      timeout: 10_000,
      cwd: ROOT,
    });
    return stdout;
  }

  beforeAll(async () => {
    requireBuiltBin();
    try {
      await run('tmux', ['-V'], { timeout: 10_000 });
    } catch (error) {
      throw new Error(
        `tmux is required for the CLI terminal tests (apt-get install tmux; .ci/run installs it): ${String(error)}`,
        { cause: error },
      );
    }
  });
  afterAll(async () => {
    await tmux('kill-server').catch(() => undefined);
    rmSync(work, { recursive: true, force: true });
  });

  /**
   * Run `command` (a shell command line) in a new 120x40 pane. The pane's shell prints
   * KEEL_EXIT=<code> when it ends, then stays (a dead pane would lose lines). With `raw`, it first
   * waits until everything the pane's programs write is copied to that file, byte for byte, and
   * tmux accepts OSC 52 from programs (`set-clipboard on`: a clipboard write becomes a buffer).
   */
  async function startPane(command: string, options: { raw?: string } = {}): Promise<string> {
    const name = `pane${++panes}`;
    const go = join(work, `${name}.go`);
    const wait = options.raw
      ? `for i in $(seq 400); do [ -e ${quote(go)} ] && break; sleep 0.05; done; `
      : '';
    await tmux(
      'new-session',
      '-d',
      '-s',
      name,
      '-x',
      '120',
      '-y',
      '40',
      `${wait}${command}; echo KEEL_EXIT=$?; exec sleep 600`,
    );
    if (options.raw) {
      await tmux('set-option', '-s', 'set-clipboard', 'on');
      await tmux('pipe-pane', '-o', '-t', name, `cat > ${quote(options.raw)}`);
      writeFileSync(go, '');
    }
    return name;
  }

  /** `keel <args> -- node <test server> <serverArgs>` in a new pane (see {@link startPane}). */
  function startKeel(args: readonly string[], serverArgs: readonly string[] = [], env = ''): Promise<string> {
    return startPane(`${env}${keelCommand(args, SERVER, serverArgs)}`);
  }

  const screen = (pane: string): Promise<string> =>
    tmux('capture-pane', '-p', '-J', '-S', '-200', '-t', pane);

  /** Poll the pane until `check` holds (bounded), and return that screen. */
  const waitFor = (pane: string, check: (text: string) => boolean, what: string, ms = 20_000) =>
    poll(() => screen(pane), check, `${what} on screen`, ms);

  const waitForFile = (path: string, ms = 20_000): Promise<string> =>
    poll(
      async () => (existsSync(path) ? readFileSync(path, 'utf8') : undefined),
      (text) => text !== undefined,
      path,
      ms,
    ) as Promise<string>;

  const keys = (pane: string, ...names: string[]) => tmux('send-keys', '-t', pane, ...names);
  const type = (pane: string, text: string) => tmux('send-keys', '-t', pane, '-l', text);

  return { tmux, work, startPane, startKeel, screen, waitFor, waitForFile, keys, type };
}
