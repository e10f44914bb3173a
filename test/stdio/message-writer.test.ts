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

  test('a full stream gets no write until it drains; what waited then goes out together, in order', async () => {
    const { stream, writes, release } = recorder({ highWaterMark: 8, hold: true });
    let changes = 0;
    const writer = new MessageWriter(stream, undefined, () => changes++);
    const first = writer.send(note(1));
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toHaveLength(1);
    // Three more ticks while the stream is full: nothing reaches it, everything is counted.
    const later: Promise<void>[] = [];
    for (const n of [2, 3, 4]) {
      later.push(writer.send(note(n)));
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(writes).toHaveLength(1);
    const line = (n: number) => JSON.stringify(note(n)).length + 1;
    expect(writer.queuedBytes).toBe(line(1) + line(2) + line(3) + line(4));
    expect(changes).toBeGreaterThan(0);
    let laterSettled = false;
    void Promise.all(later).then(() => (laterSettled = true));
    // The drain settles the first send and writes the three that waited, as one write.
    release();
    await within(first, 1_000, 'first send');
    expect(writes).toHaveLength(2);
    expect(
      writes[1]!
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l).params.n),
    ).toEqual([2, 3, 4]);
    expect(laterSettled).toBe(false);
    release();
    await within(Promise.all(later), 1_000, 'later sends');
    expect(writer.queuedBytes).toBe(0);
    writer.release();
  });

  test('release writes what waited for a drain, and settles every waiting send', async () => {
    const { stream, writes, release } = recorder({ highWaterMark: 8, hold: true });
    const writer = new MessageWriter(stream);
    const first = writer.send(note(1));
    await new Promise((resolve) => setImmediate(resolve));
    const second = writer.send(note(2));
    await new Promise((resolve) => setImmediate(resolve));
    expect(stream.writableLength).toBe(JSON.stringify(note(1)).length + 1);
    writer.release();
    // Handed to the stream (which queues it behind the first write), not dropped.
    expect(stream.writableLength).toBe(JSON.stringify(note(1)).length + JSON.stringify(note(2)).length + 2);
    await within(Promise.all([first, second]), 1_000, 'sends settled by release');
    release();
    expect(writes.map((w) => JSON.parse(w).params.n)).toEqual([1, 2]);
  });

  test('a stream that fails while sends wait for a drain: they all reject with ConnectionClosedError', async () => {
    const { stream } = recorder({ highWaterMark: 8, hold: true });
    const writer = new MessageWriter(stream);
    const first = writer.send(note(1)).catch((e: unknown) => e);
    await new Promise((resolve) => setImmediate(resolve));
    const second = writer.send(note(2)).catch((e: unknown) => e);
    await new Promise((resolve) => setImmediate(resolve));
    stream.destroy(new Error('EPIPE'));
    const errors = await within(Promise.all([first, second]), 1_000, 'rejections');
    for (const error of errors) expect(error).toBeInstanceOf(ConnectionClosedError);
    expect(writer.queuedBytes).toBe(0);
    writer.release();
  });
});
