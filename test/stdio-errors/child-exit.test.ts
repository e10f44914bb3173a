/**
 * A stdio server that died is named at the top level: the error a caller gets says the command,
 * the exit code or signal and the last lines of the server's stderr (bounded), while that stderr
 * still reaches where it went before (the terminal, or `onStderr`).
 */
import { afterEach, describe, expect, test, vi } from 'vitest';
import { Client, EraDetectionError, McpClient } from 'keel-mcp/client';
import { ConnectionClosedError } from 'keel-mcp/core';
import { StdioClientTransport, type StdioClientTransportOptions } from 'keel-mcp/stdio';
import { useProcessGuard, within } from '../helpers/guard.js';
import { CHILD_TEST_TIMEOUT_MS, WAIT_MS } from '../stdio/helpers.js';
import { fileURLToPath } from 'node:url';

vi.setConfig({ testTimeout: CHILD_TEST_TIMEOUT_MS });
useProcessGuard();

const SCRIPT = fileURLToPath(new URL('./fixtures/dies.mjs', import.meta.url));
const INFO = { name: 'stdio-errors', version: '1.0.0' };

const transports: StdioClientTransport[] = [];
afterEach(async () => {
  await Promise.all(transports.splice(0).map((t) => within(t.close(), WAIT_MS, 'close')));
  vi.restoreAllMocks();
});

function dies(env: Record<string, string>, options: Partial<StdioClientTransportOptions> = {}) {
  const captured = { stderr: '' };
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [SCRIPT, '--flag'],
    env,
    stderr: 'pipe',
    onStderr: (text) => (captured.stderr += text),
    ...options,
  });
  transports.push(transport);
  return { transport, captured };
}

async function failure(promise: Promise<unknown>): Promise<Error> {
  const error = await within(promise, WAIT_MS, 'the failure').then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(Error);
  return error as Error;
}

describe('a stdio server that died', () => {
  test('connect names the command, exit code 3 and "boom"; onStderr still gets everything', async () => {
    const { transport, captured } = dies({ DIES_LINES: '1' });
    const error = await failure(McpClient.connect(transport, { info: INFO }));
    // Not an era problem: the server went away during connect (issue 23 item 9).
    expect(error).toBeInstanceOf(ConnectionClosedError);
    expect(error).not.toBeInstanceOf(EraDetectionError);
    expect(error.message).toContain(`${process.execPath} ${SCRIPT} --flag`);
    expect(error.message).toContain('exited with code 3 during connect');
    // The reason comes last, its stderr tail included.
    expect(error.message).toMatch(/exited with code 3 during connect; its stderr ended with:\nline 1\nboom$/);
    // The exit's fields are one step away, for a caller that shows them its own way.
    expect(error.cause).toBe(transport.lastError);
    expect(captured.stderr).toBe('line 1\nboom\n');
    expect(transport.lastError).toMatchObject({
      exitCode: 3,
      signal: null,
      command: `${process.execPath} ${SCRIPT} --flag`,
      stderrTail: 'line 1\nboom',
    });
  });

  test('a request after the handshake fails with ConnectionClosedError naming the exit and stderr', async () => {
    const { transport } = dies({ DIES_AFTER_INIT: '1', DIES_CODE: '7' });
    const client = new Client(INFO);
    await within(client.connect(transport), WAIT_MS, 'connect');
    const error = await failure(client.request('tools/list', {}));
    expect(error).toBeInstanceOf(ConnectionClosedError);
    expect(error.message).toMatch(/^Connection closed: The server process \(.+ --flag\) exited with code 7/);
    expect(error.message).toContain('boom');
    // The cause is what it always was: the exit, with its fields.
    expect(error.cause).toMatchObject({ exitCode: 7, signal: null, stderrTail: 'boom' });
    await within(client.close(), WAIT_MS, 'close');
  });

  test('a signal is named instead of an exit code', async () => {
    const { transport } = dies({ DIES_AFTER_INIT: '1', DIES_SIGNAL: 'SIGKILL' });
    const client = new Client(INFO);
    await within(client.connect(transport), WAIT_MS, 'connect');
    const error = await failure(client.request('tools/list', {}));
    expect(error.message).toContain('was killed by SIGKILL');
    expect(error.cause).toMatchObject({ exitCode: null, signal: 'SIGKILL' });
    await within(client.close(), WAIT_MS, 'close');
  });

  test('the tail is the last 5 lines only', async () => {
    const { transport, captured } = dies({ DIES_LINES: '8' });
    await failure(new Client(INFO).connect(transport));
    expect((transport.lastError as { stderrTail: string }).stderrTail).toBe(
      'line 5\nline 6\nline 7\nline 8\nboom',
    );
    expect(captured.stderr.split('\n')).toHaveLength(10); // 9 lines, all delivered
  });

  test('the tail is at most 1 KiB: the end of a long line', async () => {
    const { transport, captured } = dies({ DIES_LONG: '5000' });
    const error = await failure(new Client(INFO).connect(transport));
    const tail = (transport.lastError as { stderrTail: string }).stderrTail;
    expect(new TextEncoder().encode(tail).length).toBe(1024);
    expect(tail.endsWith('xxxEND\nboom')).toBe(true);
    expect(error.message.length).toBeLessThan(1024 + 400);
    expect(captured.stderr.length).toBe(5000 + 1 + 5);
  });

  test("stderr: 'inherit' (the default) still reaches this process's stderr, and the tail is kept", async () => {
    const written: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    vi.spyOn(process.stderr, 'write').mockImplementation(((chunk: string | Uint8Array, ...rest: never[]) => {
      written.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      return write(chunk, ...rest);
    }) as typeof process.stderr.write);
    const { transport } = dies({}, { stderr: undefined, onStderr: undefined });
    const error = await failure(new Client(INFO).connect(transport));
    expect(error.message).toContain('boom');
    await within(transport.close(), WAIT_MS, 'close');
    expect(written.join('')).toContain('boom\n');
  });

  test('a grandchild holding stderr open does not hold the failure back (bounded wait for the tail)', async () => {
    const { transport, captured } = dies({ DIES_AFTER_INIT: '1', DIES_GRANDCHILD: '1' });
    const client = new Client(INFO);
    await within(client.connect(transport), WAIT_MS, 'connect');
    try {
      const error = await failure(client.request('tools/list', {}));
      expect(error.message).toMatch(/exited with code 3; its stderr ended with:\ngrandchild \d+\nboom$/);
    } finally {
      const pid = /grandchild (\d+)/.exec(captured.stderr)?.[1];
      if (pid !== undefined) process.kill(Number(pid), 'SIGKILL');
    }
    await within(client.close(), WAIT_MS, 'close');
  });

  test("stderr: 'ignore' keeps no tail; the exit is still named", async () => {
    const { transport } = dies({}, { stderr: 'ignore', onStderr: undefined });
    const error = await failure(new Client(INFO).connect(transport));
    expect(error.message).toContain('exited with code 3');
    expect(error.message).not.toContain('stderr');
    expect(transport.lastError).toMatchObject({ exitCode: 3, stderrTail: undefined });
  });
});

describe("stderr: 'inherit' with many children", () => {
  test('a dozen children at once add no listener pile to process.stderr (no MaxListenersExceededWarning)', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error): void => void warnings.push(warning.name);
    process.on('warning', onWarning);
    const listenersBefore = process.stderr.listenerCount('close');
    try {
      const all = Array.from({ length: 12 }, () =>
        dies({ DIES_AFTER_INIT: '1' }, { stderr: undefined, onStderr: undefined }),
      );
      const clients = all.map(() => new Client(INFO));
      await within(
        Promise.all(all.map(({ transport }, i) => clients[i]!.connect(transport))),
        WAIT_MS,
        'connects',
      );
      expect(process.stderr.listenerCount('close')).toBe(listenersBefore);
      const errors = await Promise.all(clients.map((client) => failure(client.request('tools/list', {}))));
      for (const error of errors) expect(error.message).toContain('boom');
      await Promise.all(clients.map((client) => within(client.close(), WAIT_MS, 'close')));
      // A warning is emitted on the next tick: let one pass before looking.
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });
});
