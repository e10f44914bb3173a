/**
 * The stdio writer hands the messages sent in one tick to the stream in one write (one syscall on
 * a pipe), keeps their order, and still settles every send: once handed over, after a drain, or
 * with ConnectionClosedError when the stream died first.
 */
import { Writable } from 'node:stream';
import { describe, expect, test } from 'vitest';
import { ConnectionClosedError } from '../../src/core/errors.js';
import { MessageWriter } from '../../src/transports/stdio/message-writer.js';
import { within } from '../helpers/guard.js';

function recorder(options: { highWaterMark?: number; hold?: boolean } = {}) {
  const writes: string[] = [];
  const callbacks: (() => void)[] = [];
  const stream = new Writable({
    highWaterMark: options.highWaterMark ?? 16 * 1024,
    decodeStrings: false,
    write(chunk: string, _encoding, callback) {
      writes.push(chunk);
      if (options.hold) callbacks.push(callback);
      else callback();
    },
  });
  return { stream, writes, release: () => callbacks.splice(0).forEach((done) => done()) };
}

const note = (n: number) => ({ jsonrpc: '2.0' as const, method: 'n', params: { n } });

describe('MessageWriter', () => {
  test('messages sent in one tick go out as one write, in order', async () => {
    const { stream, writes } = recorder();
    const writer = new MessageWriter(stream);
    const sends = [1, 2, 3].map((n) => writer.send(note(n)));
    expect(writes).toEqual([]);
    await within(Promise.all(sends), 1_000, 'sends');
    expect(writes).toHaveLength(1);
    expect(
      writes[0]!
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line).params.n),
    ).toEqual([1, 2, 3]);
    await within(writer.send(note(4)), 1_000, 'next tick');
    expect(writes).toHaveLength(2);
    writer.release();
  });

  test('release hands over what was sent before it', async () => {
    const { stream, writes } = recorder();
    const writer = new MessageWriter(stream);
    const sent = writer.send(note(1));
    writer.release();
    expect(writes).toHaveLength(1);
    await within(sent, 1_000, 'send');
    await expect(writer.send(note(2))).rejects.toBeInstanceOf(ConnectionClosedError);
  });

  test('over the high-water mark, sends wait for the drain', async () => {
    const { stream, writes, release } = recorder({ highWaterMark: 8, hold: true });
    const writer = new MessageWriter(stream);
    let settled = false;
    const sent = writer.send(note(1)).then(() => (settled = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toHaveLength(1);
    expect(settled).toBe(false);
    release();
    await within(sent, 1_000, 'drained send');
    writer.release();
  });

  test('a stream that died before the tick ends: the batch rejects with ConnectionClosedError', async () => {
    const { stream } = recorder();
    const writer = new MessageWriter(stream);
    const sent = writer.send(note(1));
    stream.destroy(new Error('EPIPE'));
    const error = await within(
      sent.catch((e: unknown) => e),
      1_000,
      'rejection',
    );
    expect(error).toBeInstanceOf(ConnectionClosedError);
    writer.release();
  });

  test('a very large tick is split into bounded writes', async () => {
    const { stream, writes } = recorder({ highWaterMark: 1024 * 1024 });
    const writer = new MessageWriter(stream);
    const big = 'x'.repeat(1000);
    const sends = Array.from({ length: 200 }, (_, n) =>
      writer.send({ jsonrpc: '2.0', method: big, params: { n } }),
    );
    await within(Promise.all(sends), 1_000, 'sends');
    expect(writes.length).toBeGreaterThan(1);
    expect(writes.join('').split('\n').filter(Boolean)).toHaveLength(200);
    writer.release();
  });
});
