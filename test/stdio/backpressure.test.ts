/**
 * stdio backpressure (issue 9 item 6): the server stops reading stdin while too much input waits
 * for the engine or too much output waits for the peer, loses nothing while paused, still sees
 * EOF after it resumes; the client side honours `drain` on the child's stdin.
 */
import { PassThrough, Writable } from 'node:stream';
import { beforeAll, describe, expect, test, vi } from 'vitest';
import { Server } from 'keel-mcp/server';
import { StdioClientTransport, StdioServerTransport } from 'keel-mcp/stdio';
import { useProcessGuard, within } from '../helpers/guard.js';
import {
  assertBuilt,
  fixture,
  INITIALIZE,
  INITIALIZED,
  RawServer,
  toolCall,
  useChildCleanup,
  CHILD_TEST_TIMEOUT_MS,
  WAIT_MS,
} from './helpers.js';

vi.setConfig({ testTimeout: CHILD_TEST_TIMEOUT_MS });
useProcessGuard();
useChildCleanup();
beforeAll(assertBuilt);

const ping = (id: number): string => JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' }) + '\n';

/** Resolves when `stream` emits `pause` (the reader paused it). */
const paused = (stream: NodeJS.EventEmitter): Promise<void> =>
  within(new Promise<void>((resolve) => stream.once('pause', () => resolve())), 5_000, 'stdin paused');

describe('StdioServerTransport backpressure (in process)', () => {
  test('input the engine does not take: stdin pauses at the mark, nothing is lost, EOF still ends the iteration', async () => {
    const stdin = new PassThrough();
    const mark = 1_000;
    const transport = new StdioServerTransport({
      stdin,
      stdout: new PassThrough(),
      inputHighWaterMark: mark,
    });
    const iterator = transport[Symbol.asyncIterator]();
    // One chunk of 500 lines, and nobody iterating: the reader must stop inside the chunk.
    const count = 500;
    const lines = Array.from({ length: count }, (_, id) => ping(id));
    const longest = Math.max(...lines.map((l) => l.length));
    const stopped = paused(stdin);
    stdin.write(lines.join(''));
    await stopped;
    const held = transport.stats;
    expect(held.paused).toBe(true);
    expect(held.pauses).toBe(1);
    expect(held.bufferedInputBytes).toBeGreaterThanOrEqual(mark);
    expect(held.bufferedInputBytes).toBeLessThan(mark + longest);
    // EOF arrives while paused: it must come after every line, not instead of them.
    stdin.end();
    const ids: unknown[] = [];
    for (;;) {
      const next = await within(iterator.next(), 5_000, 'next message');
      if (next.done) break;
      ids.push((next.value as { id: unknown }).id);
    }
    expect(ids).toEqual(Array.from({ length: count }, (_, id) => id));
    const after = transport.stats;
    expect(after.peakBufferedInputBytes).toBeLessThan(mark + longest);
    expect(after.bufferedInputBytes).toBe(0);
    expect(after.pauses).toBeGreaterThan(1); // it resumed and paused again on the way
    await transport.close();
  });

  test('output the peer does not take: stdin pauses past the output mark and resumes once the peer reads', async () => {
    const stdin = new PassThrough();
    // A peer that does not read stdout: writes are held until `reading` is set.
    let reading = false;
    const heldWrites: (() => void)[] = [];
    const received: string[] = [];
    const stdout = new Writable({
      decodeStrings: false,
      write(chunk: string, _encoding, callback) {
        received.push(chunk);
        if (reading) callback();
        else heldWrites.push(callback);
      },
    });
    const inputMark = 2_048;
    const outputMark = 8_192;
    const transport = new StdioServerTransport({
      stdin,
      stdout,
      inputHighWaterMark: inputMark,
      outputHighWaterMark: outputMark,
    });
    const server = new Server({ name: 's', version: '1' }, { capabilities: {} });
    const session = server.connect(transport);
    const count = 2_000;
    const lines = Array.from({ length: count }, (_, id) => ping(id));
    const longest = Math.max(...lines.map((l) => l.length));
    stdin.write(lines.join(''));
    // Held by output: paused with no input waiting, so only the peer reading can resume it.
    await within(
      new Promise<void>((resolve) => {
        const check = (): void => {
          const { paused, bufferedInputBytes, queuedOutputBytes } = transport.stats;
          if (paused && bufferedInputBytes === 0 && queuedOutputBytes > outputMark / 4) resolve();
          else setImmediate(check);
        };
        check();
      }),
      5_000,
      'stdin held paused by output',
    );
    const stuck = transport.stats;
    // Answers to what was read before the pause still queue up: at most the input mark's worth.
    expect(stuck.peakQueuedOutputBytes).toBeLessThan(outputMark + inputMark + 2 * longest);
    expect(stuck.peakBufferedInputBytes).toBeLessThan(inputMark + longest);
    // The peer starts reading.
    reading = true;
    heldWrites.splice(0).forEach((done) => done());
    const answered = (): number => received.join('').split('\n').filter(Boolean).length;
    await within(
      new Promise<void>((resolve) => {
        const check = (): void => (answered() === count ? resolve() : void setImmediate(check));
        check();
      }),
      5_000,
      'every ping answered',
    );
    const ids = received
      .join('')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line).id as number);
    expect(ids).toEqual(Array.from({ length: count }, (_, id) => id));
    expect(transport.stats.paused).toBe(false);
    stdin.end();
    await within(session.closed, 5_000, 'session closed on EOF');
  });

  test('review: stdout dies while stdin is paused for output: reading resumes, EOF is seen, the session closes', async () => {
    const stdin = new PassThrough();
    // A peer that never reads stdout, then goes away (its end of the pipe breaks).
    const heldWrites: ((error?: Error | null) => void)[] = [];
    const stdout = new Writable({
      decodeStrings: false,
      write(_chunk: string, _encoding, callback) {
        heldWrites.push(callback);
      },
    });
    const transport = new StdioServerTransport({
      stdin,
      stdout,
      inputHighWaterMark: 2_048,
      outputHighWaterMark: 8_192,
    });
    const server = new Server({ name: 's', version: '1' }, { capabilities: {} });
    const session = server.connect(transport);
    stdin.write(Array.from({ length: 2_000 }, (_, id) => ping(id)).join(''));
    await within(
      new Promise<void>((resolve) => {
        // Paused by output alone, with no input left for the engine to take (taking input would
        // re-check the marks by itself).
        const check = (): void => {
          const { paused, bufferedInputBytes } = transport.stats;
          if (paused && bufferedInputBytes === 0) resolve();
          else setImmediate(check);
        };
        check();
      }),
      5_000,
      'stdin paused for output',
    );
    // The peer is gone: stdout breaks, and stdin ends.
    stdout.destroy(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
    stdin.end();
    await within(session.closed, 5_000, 'session closed on EOF after stdout broke');
    expect(transport.stats.paused).toBe(false);
  });

  test('marks are checked: a low-water mark above its high-water mark is refused', () => {
    expect(
      () =>
        new StdioServerTransport({
          stdin: new PassThrough(),
          stdout: new PassThrough(),
          inputHighWaterMark: 10,
          inputLowWaterMark: 20,
        }),
    ).toThrow(RangeError);
    expect(
      () =>
        new StdioServerTransport({
          stdin: new PassThrough(),
          stdout: new PassThrough(),
          outputHighWaterMark: -1,
        }),
    ).toThrow(RangeError);
  });
});

describe('stdio backpressure with a real child process', () => {
  test('a peer sends 20k pings without reading stdout: Keel stays under its marks, then answers each exactly once', async () => {
    const inputMark = 16 * 1024;
    const outputMark = 64 * 1024;
    const server = new RawServer(fixture('flow-server.js'), {
      env: { KEEL_INPUT_HWM: String(inputMark), KEEL_OUTPUT_HWM: String(outputMark) },
    });
    server.send(INITIALIZE);
    await server.response('init');
    server.send(INITIALIZED);
    // Stop reading the server's stdout, then flood its stdin.
    server.child.stdout!.pause();
    const count = 20_000;
    const lines = Array.from({ length: count }, (_, id) => ping(id));
    const longest = Math.max(...lines.map((l) => l.length));
    server.child.stdin!.write(lines.join(''));
    await within(
      new Promise<void>((resolve) => {
        const check = (): void => (server.stderr.includes('held by output') ? resolve() : undefined);
        server.child.stderr!.on('data', check);
        check();
      }),
      WAIT_MS,
      'the server holding stdin paused for output',
    );
    // Keel now reads nothing until we read: start reading, and every ping gets its answer.
    server.child.stdout!.resume();
    await server.waitFor((m) => m.id === count - 1, 'the last ping answer');
    server.send(toolCall('stats', 'stats'));
    const stats = (await server.response('stats')).result.structuredContent;
    const answers = new Map<unknown, number>();
    for (const m of server.messages)
      if (typeof m.id === 'number') answers.set(m.id, (answers.get(m.id) ?? 0) + 1);
    expect(answers.size).toBe(count);
    expect([...answers.values()].every((n) => n === 1)).toBe(true);
    expect(stats.pauses).toBeGreaterThanOrEqual(1);
    expect(stats.peakBufferedInputBytes).toBeLessThan(inputMark + longest);
    // Output past its mark is only the answers to what was read before the pause.
    expect(stats.peakQueuedOutputBytes).toBeLessThan(outputMark + inputMark + 2 * longest);
    console.error(
      `stdio backpressure: peak input ${stats.peakBufferedInputBytes} B (mark ${inputMark}), ` +
        `peak output ${stats.peakQueuedOutputBytes} B (mark ${outputMark}), ${stats.pauses} pauses`,
    );
    server.endInput();
    expect(await within(server.exited, WAIT_MS, 'server exit')).toMatchObject({ code: 0, signal: null });
  });
});

describe('StdioClientTransport backpressure', () => {
  test.skipIf(process.platform === 'win32')(
    'a child that does not read its stdin: sends wait for drain and are counted, then each arrives exactly once, in order',
    async () => {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [fixture('slow-reader.js')],
        stderr: 'pipe',
      });
      const iterator = transport[Symbol.asyncIterator]();
      const ready = (await within(iterator.next(), WAIT_MS, 'ready')).value as { params: { pid: number } };
      const padding = 'x'.repeat(16 * 1024);
      const count = 64; // 1 MiB in all: far more than a pipe holds
      const settled: boolean[] = [];
      const sends: Promise<void>[] = [];
      for (let n = 0; n < count; n++) {
        const index = n;
        settled.push(false);
        sends.push(
          transport.send({ jsonrpc: '2.0', method: 'test/noise', params: { n, padding } }).then(() => {
            settled[index] = true;
          }),
        );
        // One message per tick: each is its own batch, and so its own write attempt.
        await new Promise((resolve) => setImmediate(resolve));
      }
      // The pipe is full: the last sends are still waiting, and all of it is counted as queued.
      expect(settled[count - 1]).toBe(false);
      expect(transport.queuedOutputBytes).toBeGreaterThan(count * padding.length - 256 * 1024);
      // The child starts reading: every message arrives once, in order, and every send settles.
      process.kill(ready.params.pid, 'SIGUSR2');
      const got: number[] = [];
      while (got.length < count) {
        const next = await within(iterator.next(), WAIT_MS, `message ${got.length}`);
        got.push((next.value as { params: { n: number } }).params.n);
      }
      expect(got).toEqual(Array.from({ length: count }, (_, n) => n));
      await within(Promise.all(sends), WAIT_MS, 'sends');
      expect(transport.queuedOutputBytes).toBe(0);
      await within(transport.close(), WAIT_MS, 'close');
      expect(transport.exitCode).toBe(0);
    },
  );
});
