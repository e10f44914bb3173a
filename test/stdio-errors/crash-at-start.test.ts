/**
 * Issue 23 item 9: a stdio server that crashes at start (a syntax error) fails `connect` with a
 * `ConnectionClosedError` that says the server process exited during connect, with its exit code
 * and the stderr line that names the error, not only the stack frames and `Node.js v20.x` that
 * come last. Whatever the era path: the default probe (`server/discover`), `era: 'modern'`, or the
 * `initialize` handshake at once.
 */
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { Client, EraDetectionError, McpClient } from 'keel-mcp/client';
import { ConnectionClosedError } from 'keel-mcp/core';
import { StdioClientTransport } from 'keel-mcp/stdio';
import { STDERR_TAIL_BYTES, StderrTail } from '../../src/transports/stdio/stderr-tail.js';
import { useProcessGuard, within } from '../helpers/guard.js';
import { CHILD_TEST_TIMEOUT_MS, WAIT_MS } from '../stdio/helpers.js';

vi.setConfig({ testTimeout: CHILD_TEST_TIMEOUT_MS });
useProcessGuard();

const SCRIPT = fileURLToPath(new URL('./fixtures/syntax-error-at-start', import.meta.url));
const INFO = { name: 'stdio-errors', version: '1.0.0' };

const transports: StdioClientTransport[] = [];
afterEach(async () => {
  await Promise.all(transports.splice(0).map((t) => within(t.close(), WAIT_MS, 'close')));
});

function crashing(): { transport: StdioClientTransport; stderr: () => string } {
  let stderr = '';
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [SCRIPT],
    stderr: 'pipe',
    onStderr: (text) => (stderr += text),
  });
  transports.push(transport);
  return { transport, stderr: () => stderr };
}

const connects: Record<string, (t: StdioClientTransport) => Promise<unknown>> = {
  "McpClient (era 'auto': the server/discover probe)": (t: StdioClientTransport) =>
    McpClient.connect(t, { info: INFO }),
  "McpClient (era 'modern')": (t: StdioClientTransport) =>
    McpClient.connect(t, { info: INFO, era: 'modern' }),
  "Client (era 'legacy': initialize at once)": (t: StdioClientTransport) => new Client(INFO).connect(t),
};

describe('issue 23 item 9: a stdio server that crashes at start', () => {
  test.each(Object.entries(connects))(
    '%s: ConnectionClosedError naming the exit and the SyntaxError line',
    async (_name, connect) => {
      const { transport, stderr } = crashing();
      const error = await within(connect(transport), WAIT_MS, 'connect').then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      expect(error).toBeInstanceOf(ConnectionClosedError);
      expect(error).not.toBeInstanceOf(EraDetectionError);
      const message = error!.message;
      // Plain words first: which process, how it ended, when.
      expect(
        message.startsWith(
          `The server process (${process.execPath} ${SCRIPT}) exited with code 1 during connect`,
        ),
      ).toBe(true);
      expect(message).not.toMatch(/era|server\/discover/);
      // The error line is kept although it is not among the last lines of stderr.
      expect(message).toContain("SyntaxError: Unexpected identifier 'is'");
      expect(message).toMatch(/SyntaxError: Unexpected identifier 'is'\n\.\.\.\n/);
      expect(message).toMatch(/Node\.js v\d+\.\d+\.\d+$/);
      // The stack frames above the last lines are left out.
      const frames = message.split('\n').filter((line) => line.startsWith('    at '));
      expect(frames.length).toBeLessThan(
        stderr()
          .split('\n')
          .filter((line) => line.startsWith('    at ')).length,
      );
      // The exit's fields are the cause, one step away (for a caller that shows them its own way).
      expect(error!.cause).toBe(transport.lastError);
      expect(error!.cause).toMatchObject({
        exitCode: 1,
        signal: null,
        command: `${process.execPath} ${SCRIPT}`,
      });
      const tail = (error!.cause as { stderrTail: string }).stderrTail;
      expect(tail.startsWith("SyntaxError: Unexpected identifier 'is'\n...\n")).toBe(true);
      expect(message.endsWith(tail)).toBe(true);
    },
  );
});

describe('the stderr lines kept for a dead child (StderrTail)', () => {
  const tailOf = (...chunks: string[]): string => {
    const tail = new StderrTail();
    for (const chunk of chunks) tail.push(chunk);
    return tail.text();
  };

  test('the first error line above the last five comes first, then "..." for the lines between', () => {
    const frames = Array.from({ length: 6 }, (_, i) => `    at frame${i} (file:///a.js:${i}:1)`);
    const text = tailOf(
      'file:///a.js:3\n',
      'TypeError: x is not a function\n',
      'Error: a second one\n',
      ...frames.map((f) => `${f}\n`),
    );
    expect(text.split('\n')).toEqual(['TypeError: x is not a function', '...', ...frames.slice(-5)]);
  });

  test('no "..." when the error line is right above the last five; no copy when it is among them', () => {
    const lines = ['Error: boom', 'a', 'b', 'c', 'd', 'e'];
    expect(tailOf(lines.join('\n'))).toBe(lines.join('\n'));
    expect(tailOf('noise\nError: boom\nb\nc\n')).toBe('noise\nError: boom\nb\nc');
  });

  test('other runtimes: Python, Java, Go, Rust', () => {
    const tail = (first: string) => tailOf(`${first}\n1\n2\n3\n4\n5\n6\n`).split('\n')[0];
    expect(tail('ModuleNotFoundError: No module named mcp')).toBe('ModuleNotFoundError: No module named mcp');
    expect(tail('Exception in thread "main" java.lang.IllegalStateException')).toMatch(
      /^Exception in thread/,
    );
    expect(tail('panic: runtime error: index out of range')).toMatch(/^panic: /);
    expect(tail("thread 'main' panicked at src/main.rs:2:5:")).toMatch(/^thread 'main' panicked/);
    expect(tail('starting server...')).toBe('2');
  });

  test('bounded: a long error line is cut to 300 bytes, the whole at most STDERR_TAIL_BYTES', () => {
    const text = tailOf(
      `Error: ${'é'.repeat(1000)}\n`,
      ...Array.from({ length: 5 }, () => `${'x'.repeat(400)}\n`),
      'x\n',
    );
    const [first] = text.split('\n');
    expect(new TextEncoder().encode(first).length).toBeLessThanOrEqual(300);
    expect(first!.endsWith('é...')).toBe(true);
    expect(new TextEncoder().encode(text).length).toBeLessThanOrEqual(STDERR_TAIL_BYTES);
    expect(text).not.toContain('\uFFFD');
    expect(text.endsWith('\nx')).toBe(true);
  });

  test('the ring keeps 4 KiB: a line it cut in front is not taken for an error line', () => {
    // "…Error: not really" is the end of a line longer than the ring: its start is gone.
    const text = tailOf(`${'y'.repeat(5000)}Error: not really\n`, '1\n2\n3\n4\n5\n6\n');
    expect(text).toBe('2\n3\n4\n5\n6');
  });
});
