/**
 * Helpers for the stdio tests: spawn a compiled server (dist/ or a fixture script), talk raw
 * newline-delimited JSON to it, and check everything it wrote.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, expect } from 'vitest';
import { within } from '../helpers/guard.js';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const FIXTURES = join(ROOT, 'test', 'stdio', 'fixtures');
export const EXAMPLE_SERVER = join(ROOT, 'dist', 'examples', 'stdio-example-server.js');
const BUILT_STDIO = join(ROOT, 'dist', 'src', 'hosts', 'stdio', 'index.js');

/** The child tests run compiled code: `npm test` builds first; while developing run `npm run build`. */
export function assertBuilt(): void {
  if (!existsSync(BUILT_STDIO) || !existsSync(EXAMPLE_SERVER)) {
    throw new Error('dist/ is missing: run `npm run build` before the stdio tests');
  }
}

/**
 * Bound on waits that involve a child process (start-up included). Generous on purpose: these are
 * correctness bounds (no hang), and the suite may share a loaded machine.
 */
export const WAIT_MS = 15_000;
/** Per-test timeout of the files that spawn children (several bounded waits in a row). */
export const CHILD_TEST_TIMEOUT_MS = 60_000;

export function fixture(name: string): string {
  return join(FIXTURES, name);
}

export type Json = Record<string, any>;

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Milliseconds from `endInput()` (or spawn) to exit. */
  ms: number;
}

/** A server child process driven over raw pipes. */
export class RawServer {
  readonly child: ChildProcess;
  /** Every stdout line, verbatim. */
  readonly lines: string[] = [];
  /** Parsed stdout lines (lines that failed to parse are only in `lines`). */
  readonly messages: Json[] = [];
  stderr = '';
  readonly exited: Promise<Exit>;
  private partial = '';
  private waiters: { test: (m: Json) => boolean; resolve: (m: Json) => void }[] = [];
  private inputEndedAt = Date.now();

  constructor(
    script: string,
    options: {
      args?: string[];
      nodeArgs?: string[];
      env?: Record<string, string>;
      stdin?: 'pipe' | number;
    } = {},
  ) {
    const startedAt = Date.now();
    this.child = spawn(process.execPath, [...(options.nodeArgs ?? []), script, ...(options.args ?? [])], {
      stdio: [options.stdin ?? 'pipe', 'pipe', 'pipe'],
      env: { ...process.env, ...options.env },
    });
    this.inputEndedAt = startedAt;
    this.child.stdout!.setEncoding('utf8');
    this.child.stdout!.on('data', (text: string) => this.onStdout(text));
    this.child.stderr!.setEncoding('utf8');
    this.child.stderr!.on('data', (text: string) => (this.stderr += text));
    this.child.stdin?.on('error', () => undefined);
    this.exited = new Promise((resolve) => {
      this.child.once('close', (code, signal) =>
        resolve({ code, signal, ms: Date.now() - this.inputEndedAt }),
      );
    });
    live.add(this);
    void this.exited.then(() => live.delete(this));
  }

  /** Write one message (an object is JSON-encoded; a string or bytes go as they are) plus `\n`. */
  send(message: Json | string | Uint8Array): void {
    const stdin = this.child.stdin!;
    if (message instanceof Uint8Array) {
      stdin.write(message);
      stdin.write('\n');
    } else stdin.write((typeof message === 'string' ? message : JSON.stringify(message)) + '\n');
  }

  /** Close the child's stdin (EOF) and start the exit clock. */
  endInput(): void {
    this.inputEndedAt = Date.now();
    this.child.stdin!.end();
  }

  /** The first message (already seen or still to come) that matches, bounded in time. */
  waitFor(test: (m: Json) => boolean, what: string, ms = WAIT_MS): Promise<Json> {
    const seen = this.messages.find(test);
    if (seen) return Promise.resolve(seen);
    return within(
      new Promise<Json>((resolve) => this.waiters.push({ test, resolve })),
      ms,
      `${what} (stderr: ${this.stderr.trim() || '-'})`,
    );
  }

  /** The response to request `id`. */
  response(id: string | number, ms?: number): Promise<Json> {
    return this.waitFor((m) => m.id === id && ('result' in m || 'error' in m), `response to ${id}`, ms);
  }

  /** All responses (result or error) written for `id`. */
  responsesFor(id: string | number | null): Json[] {
    return this.messages.filter((m) => m.id === id && ('result' in m || 'error' in m));
  }

  private onStdout(text: string): void {
    const parts = (this.partial + text).split('\n');
    this.partial = parts.pop() ?? '';
    for (const line of parts) {
      this.lines.push(line);
      let message: Json;
      try {
        message = JSON.parse(line);
      } catch {
        continue;
      }
      this.messages.push(message);
      this.waiters = this.waiters.filter((waiter) => {
        if (!waiter.test(message)) return true;
        waiter.resolve(message);
        return false;
      });
    }
  }

  /** Bytes after the last newline (must be empty: every message ends with one). */
  get trailing(): string {
    return this.partial;
  }
}

const live = new Set<RawServer>();

/** Kill children a failed test left behind, before the process guard counts handles. */
export function useChildCleanup(): void {
  afterEach(async () => {
    for (const server of [...live]) {
      server.child.kill('SIGKILL');
      await within(server.exited, WAIT_MS, 'killing a leftover child');
    }
  });
}

/** True when `line` is one valid JSON-RPC 2.0 message (request, notification or response). */
export function isJsonRpcLine(line: string): boolean {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return false;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const m = value as Json;
  if (m.jsonrpc !== '2.0') return false;
  const id = m.id;
  const validId = typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id));
  if (typeof m.method === 'string') return id === undefined || validId;
  if ('result' in m) return validId && typeof m.result === 'object' && m.result !== null;
  if ('error' in m) {
    return (
      (validId || id === null) && typeof m.error?.code === 'number' && typeof m.error?.message === 'string'
    );
  }
  return false;
}

/** Assert-style helper: every stdout line of `server` is JSON-RPC and nothing trails. */
export function invalidStdout(server: RawServer): string[] {
  const bad = server.lines.filter((line) => !isJsonRpcLine(line));
  if (server.trailing !== '') bad.push(`(unterminated) ${server.trailing}`);
  return bad;
}

export const INITIALIZE = {
  jsonrpc: '2.0',
  id: 'init',
  method: 'initialize',
  params: {
    protocolVersion: '2025-11-25',
    capabilities: { roots: {} },
    clientInfo: { name: 'raw', version: '1' },
  },
};
export const INITIALIZED = { jsonrpc: '2.0', method: 'notifications/initialized' };

export function toolCall(id: string | number, name: string, args: Json = {}): Json {
  return { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } };
}

/** End stdin and expect a clean shutdown: exit 0 (no signal), and every stdout line was JSON-RPC. */
export async function endAndExpectCleanExit(server: RawServer): Promise<void> {
  server.endInput();
  expect(await within(server.exited, WAIT_MS, 'server exit after EOF')).toMatchObject({
    code: 0,
    signal: null,
  });
  expect(invalidStdout(server)).toEqual([]);
}
