/**
 * StdioClientTransport against real child processes: server death mid-call (scenario 12), the
 * close() escalation (scenario 18), concurrent dispatch (scenario 25), spawn failures, EPIPE.
 */
import { beforeAll, vi, describe, expect, test } from 'vitest';
import { Client } from 'keel-mcp/client';
import { ConnectionClosedError } from 'keel-mcp/core';
import { StdioClientTransport, type StdioClientTransportOptions } from 'keel-mcp/stdio';
import { useProcessGuard, within } from '../helpers/guard.js';
import { assertBuilt, fixture, CHILD_TEST_TIMEOUT_MS, WAIT_MS } from './helpers.js';

vi.setConfig({ testTimeout: CHILD_TEST_TIMEOUT_MS });
useProcessGuard();
beforeAll(assertBuilt);

/** A transport to a node script, with its stderr and the close() escalation steps captured. */
function nodeChild(script: string, options: Partial<StdioClientTransportOptions> = {}) {
  const captured = { stderr: '', steps: [] as string[] };
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [fixture(script)],
    stderr: 'pipe',
    onStderr: (text) => (captured.stderr += text),
    logger: {
      debug: (message) => {
        const step = /stdio client: (SIGTERM|SIGKILL|gave-up)/.exec(message);
        if (step) captured.steps.push(step[1]!);
      },
      error() {},
    },
    ...options,
  });
  return { transport, captured };
}

async function connectedClient(transport: StdioClientTransport): Promise<Client> {
  const client = new Client({ name: 'stdio-test', version: '1.0.0' });
  await within(client.connect(transport), WAIT_MS, 'connect');
  return client;
}

const call = (client: Client, name: string, args: Record<string, unknown> = {}) =>
  client.request('tools/call', { name, arguments: args });

describe('StdioClientTransport', () => {
  test('talks to a child server; close() ends it through stdin EOF alone', async () => {
    // A long grace: this server exits on EOF by itself, however loaded the machine is.
    const { transport } = nodeChild('tool-server.js', { closeGraceMs: WAIT_MS });
    const client = await connectedClient(transport);
    expect(transport.pid).toBeTypeOf('number');
    expect(await call(client, 'echo', { text: 'hi' })).toEqual({ content: [{ type: 'text', text: 'hi' }] });
    await within(client.close(), WAIT_MS, 'client close');
    expect(transport.exitCode).toBe(0);
    expect(transport.signalCode).toBeNull();
  });

  test('scenario 25: a fast call returns while a slow one is still running', async () => {
    const { transport } = nodeChild('tool-server.js');
    const client = await connectedClient(transport);
    let slowDone = false;
    const slow = call(client, 'block').then((result) => {
      slowDone = true;
      return result;
    });
    expect(await within(call(client, 'echo', { text: 'fast' }), WAIT_MS, 'fast call')).toEqual({
      content: [{ type: 'text', text: 'fast' }],
    });
    expect(slowDone).toBe(false);
    await within(call(client, 'release'), WAIT_MS, 'release call');
    expect(await within(slow, WAIT_MS, 'slow call')).toEqual({
      content: [{ type: 'text', text: 'released' }],
    });
    await within(client.close(), WAIT_MS, 'client close');
  });

  test('scenario 12: the server exits mid-call → pending calls reject promptly with ConnectionClosedError; onclose once', async () => {
    const { transport } = nodeChild('tool-server.js');
    const client = await connectedClient(transport);
    let closes = 0;
    client.connection.onClose(() => closes++);
    const parked = call(client, 'block');
    const dying = call(client, 'exit', { code: 3 });
    const startedAt = Date.now();
    const errors = await within(
      Promise.all([parked.catch((e: unknown) => e), dying.catch((e: unknown) => e)]),
      WAIT_MS,
      'pending calls after the server died',
    );
    console.error(`stdio scenario 12: pending calls failed ${Date.now() - startedAt} ms after the exit call`);
    for (const error of errors) {
      expect(error).toBeInstanceOf(ConnectionClosedError);
      expect((error as Error).cause).toMatchObject({ exitCode: 3, signal: null });
    }
    await within(client.closed, WAIT_MS, 'client closed');
    expect(closes).toBe(1);
    expect(transport.exitCode).toBe(3);
    // Use after close fails fast with the same typed error; close again is harmless.
    await expect(call(client, 'echo', { text: 'x' })).rejects.toBeInstanceOf(ConnectionClosedError);
    await within(client.close(), WAIT_MS, 'second close');
    expect(closes).toBe(1);
  });

  test('a command that does not exist: connect rejects at once with ConnectionClosedError (cause ENOENT)', async () => {
    const transport = new StdioClientTransport({ command: 'keel-no-such-command-4d1f', stderr: 'ignore' });
    const client = new Client({ name: 'stdio-test', version: '1.0.0' });
    const error = await within(client.connect(transport), WAIT_MS, 'connect').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionClosedError);
    expect((error as Error).cause).toMatchObject({ code: 'ENOENT' });
    expect(transport.pid).toBeUndefined();
    expect(transport.writable).toBe(false);
    await within(transport.close(), WAIT_MS, 'close');
  });

  test('close() before the child was ever started spawns nothing; close is idempotent', async () => {
    const { transport } = nodeChild('tool-server.js');
    const first = transport.close();
    expect(transport.close()).toBe(first);
    await within(first, WAIT_MS, 'close');
    expect(transport.pid).toBeUndefined();
    await expect(transport.send({ jsonrpc: '2.0', method: 'x' })).rejects.toBeInstanceOf(
      ConnectionClosedError,
    );
  });

  test('stderr: "pipe" exposes the child stderr as a stream', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['-e', 'process.stderr.write("to stderr\\n")'],
      stderr: 'pipe',
    });
    let text = '';
    transport.stderr!.setEncoding('utf8');
    transport.stderr!.on('data', (chunk: string) => (text += chunk));
    const ended = new Promise((resolve) => transport.stderr!.once('end', resolve));
    const iterator = transport[Symbol.asyncIterator]();
    expect(await within(iterator.next(), WAIT_MS, 'end of output')).toEqual({ value: undefined, done: true });
    await within(transport.close(), WAIT_MS, 'close');
    await within(ended, WAIT_MS, 'stderr end');
    expect(text).toBe('to stderr\n');
  });
});

describe('scenario 18: close() escalation', () => {
  /** Read the child's first message (it is running and its signal handlers are installed). */
  async function ready(transport: StdioClientTransport): Promise<void> {
    const first = await within(transport[Symbol.asyncIterator]().next(), WAIT_MS, 'ready message');
    expect(first.value).toMatchObject({ method: 'test/ready' });
  }

  test('a child that ignores stdin EOF gets SIGTERM after closeGraceMs', async () => {
    const { transport, captured } = nodeChild('stubborn-server.js', {
      closeGraceMs: 200,
      killGraceMs: 5_000,
    });
    await ready(transport);
    await within(transport.close(), WAIT_MS, 'close');
    expect(captured.steps).toEqual(['SIGTERM']);
    // Exit code 0 is its SIGTERM handler's doing: SIGTERM was delivered, and no SIGKILL needed.
    expect(transport.exitCode).toBe(0);
    expect(transport.signalCode).toBeNull();
  });

  test('a child that also ignores SIGTERM gets SIGKILL after killGraceMs', async () => {
    const { transport, captured } = nodeChild('stubborn-server.js', {
      closeGraceMs: 100,
      killGraceMs: 300,
      env: { STUBBORN_IGNORE_TERM: '1' },
    });
    await ready(transport);
    await within(transport.close(), WAIT_MS, 'close');
    expect(captured.steps).toEqual(['SIGTERM', 'SIGKILL']);
    expect(transport.signalCode).toBe('SIGKILL');
  });

  test('a child that keeps writing to stdout while we close: close resolves, no unhandled error', async () => {
    const { transport, captured } = nodeChild('stubborn-server.js', {
      closeGraceMs: 100,
      killGraceMs: 300,
      env: { STUBBORN_IGNORE_TERM: '1', STUBBORN_FLOOD: '1' },
    });
    await ready(transport);
    // Let it flood for a while: read a bounded number of messages.
    const iterator = transport[Symbol.asyncIterator]();
    for (let i = 0; i < 200; i++) await within(iterator.next(), WAIT_MS, 'flood message');
    await within(transport.close(), WAIT_MS, 'close');
    expect(captured.steps).toEqual(['SIGTERM', 'SIGKILL']);
    expect(transport.signalCode).toBe('SIGKILL');
    expect(await iterator.next()).toEqual({ value: undefined, done: true });
  });

  test('a child that closed its stdin: our writes hit EPIPE, which is swallowed', async () => {
    const { transport } = nodeChild('stubborn-server.js', {
      closeGraceMs: 100,
      killGraceMs: 2_000,
      env: { STUBBORN_CLOSE_STDIN: '1' },
    });
    await ready(transport);
    const padding = 'x'.repeat(4096);
    // Sends one at a time, each awaited: only the send in flight when the pipe broke can fail, and
    // the loop stops right after it (the transport is then not writable).
    const outcomes: unknown[] = [];
    for (let i = 0; i < 2_000 && transport.writable; i++) {
      outcomes.push(
        await within(
          transport.send({ jsonrpc: '2.0', method: 'test/noise', params: { padding } }).then(
            () => 'sent',
            (error: unknown) => error,
          ),
          WAIT_MS,
          'send',
        ),
      );
    }
    expect(transport.writable).toBe(false);
    expect(transport.lastError).toMatchObject({ code: 'EPIPE' });
    // Exactly one failure, the last send, with the typed error whose cause is the EPIPE.
    const failures = outcomes.filter((outcome) => outcome !== 'sent');
    expect(failures).toHaveLength(1);
    expect(outcomes.at(-1)).toBe(failures[0]);
    expect(failures[0]).toBeInstanceOf(ConnectionClosedError);
    expect((failures[0] as Error).cause).toMatchObject({ code: 'EPIPE' });
    await expect(transport.send({ jsonrpc: '2.0', method: 'late' })).rejects.toBeInstanceOf(
      ConnectionClosedError,
    );
    await within(transport.close(), WAIT_MS, 'close');
    console.error(`stdio EPIPE: ${outcomes.length} send(s) made before the pipe was seen broken`);
  });
});
