/**
 * The stdio writer hands the messages sent in one tick to the stream in one write (one syscall on
 * a pipe), keeps their order, and still settles every send: once handed over, after a drain, or
 * with ConnectionClosedError when the stream died first.
 */
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { ConnectionClosedError } from 'keel-mcp/core';
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

const progress = (token: number, value: number) => ({
  jsonrpc: '2.0' as const,
  method: 'notifications/progress',
  params: { progressToken: token, progress: value },
});
const answer = (id: number) => ({ jsonrpc: '2.0' as const, id, result: {} });
/** What each write carried: `p<request>` for a progress notification, `r<id>` for an answer, `n<n>` else. */
const kinds = (writes: string[]) =>
  writes.map((w) =>
    w
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const m = JSON.parse(line);
        if (m.method === 'notifications/progress') return `p${m.params.progressToken}`;
        return 'id' in m ? `r${m.id}` : `n${m.params.n}`;
      })
      .join(','),
  );
/** Let the end-of-tick flush run (process.nextTick is not faked). */
const endOfTick = () => new Promise<void>((resolve) => process.nextTick(resolve));

describe('MessageWriter: issue 23 item 2, a request answer goes apart from its own progress', () => {
  // The official SDK clients drop a progress notification read in one chunk with its request's
  // answer; a pipe joins writes made before the reader reads, so the answer waits the spacing.
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  test('progress and its answer sent in one tick: the answer is written alone, 10 ms after the progress', async () => {
    const { stream, writes } = recorder();
    const writer = new MessageWriter(stream);
    void writer.send(progress(7, 100), 7);
    const answered = writer.send(answer(7));
    await endOfTick();
    expect(kinds(writes)).toEqual(['p7']);
    vi.advanceTimersByTime(9);
    expect(kinds(writes)).toEqual(['p7']);
    vi.advanceTimersByTime(1);
    expect(kinds(writes)).toEqual(['p7', 'r7']);
    await within(answered, 1_000, 'answer');
    expect(vi.getTimerCount()).toBe(0);
    writer.release();
  });

  test('progress written in an earlier tick: the answer waits for what is left of the spacing', async () => {
    const { stream, writes } = recorder();
    const writer = new MessageWriter(stream);
    await writer.send(progress(1, 50), 1);
    vi.advanceTimersByTime(4);
    void writer.send(answer(1));
    await endOfTick();
    expect(kinds(writes)).toEqual(['p1']);
    vi.advanceTimersByTime(6);
    expect(kinds(writes)).toEqual(['p1', 'r1']);
    // Once the spacing has passed, an answer goes at the end of its tick as always.
    await writer.send(progress(2, 50), 2);
    vi.advanceTimersByTime(10);
    await writer.send(answer(2));
    expect(kinds(writes)).toEqual(['p1', 'r1', 'p2', 'r2']);
    expect(vi.getTimerCount()).toBe(0);
    writer.release();
  });

  test('no cost without progress: answers, and answers to other requests than the progress, go with their tick', async () => {
    const { stream, writes } = recorder();
    const writer = new MessageWriter(stream);
    await Promise.all([writer.send(answer(1)), writer.send(note(1)), writer.send(answer(2))]);
    expect(kinds(writes)).toEqual(['r1,n1,r2']);
    await Promise.all([writer.send(progress(3, 1), 3), writer.send(answer(4)), writer.send(note(2))]);
    expect(kinds(writes)).toEqual(['r1,n1,r2', 'p3,r4,n2']);
    expect(vi.getTimerCount()).toBe(0);
    writer.release();
  });

  test('what is sent after a waiting answer waits with it: the order on the wire is the order of the sends', async () => {
    const { stream, writes } = recorder();
    const writer = new MessageWriter(stream);
    void writer.send(note(1));
    void writer.send(progress(1, 100), 1);
    void writer.send(answer(1));
    void writer.send(note(2));
    void writer.send(answer(9));
    // Progress then answer again inside the waiting batch: that answer waits the spacing after it.
    void writer.send(progress(2, 100), 2);
    const last = writer.send(answer(2));
    await endOfTick();
    expect(kinds(writes)).toEqual(['n1,p1']);
    vi.advanceTimersByTime(10);
    expect(kinds(writes)).toEqual(['n1,p1', 'r1,n2,r9,p2']);
    vi.advanceTimersByTime(9);
    expect(writes).toHaveLength(2);
    vi.advanceTimersByTime(1);
    expect(kinds(writes)).toEqual(['n1,p1', 'r1,n2,r9,p2', 'r2']);
    await within(last, 1_000, 'last answer');
    writer.release();
  });

  test('a progress notification without relatedRequestId is matched by its token (the official clients use the request id)', async () => {
    const { stream, writes } = recorder();
    const writer = new MessageWriter(stream);
    void writer.send(progress(5, 1));
    void writer.send(answer(5));
    await endOfTick();
    expect(kinds(writes)).toEqual(['p5']);
    vi.advanceTimersByTime(10);
    expect(kinds(writes)).toEqual(['p5', 'r5']);
    writer.release();
  });

  test('progressSpacingMs 0 turns it off: progress and answer share the write, as before', async () => {
    const { stream, writes } = recorder();
    const writer = new MessageWriter(stream, undefined, undefined, { progressSpacingMs: 0 });
    await Promise.all([writer.send(progress(1, 1), 1), writer.send(answer(1))]);
    expect(kinds(writes)).toEqual(['p1,r1']);
    expect(vi.getTimerCount()).toBe(0);
    writer.release();
  });

  test('release while an answer waits writes it at once and leaves no timer', async () => {
    const { stream, writes } = recorder();
    const writer = new MessageWriter(stream);
    void writer.send(progress(1, 1), 1);
    const answered = writer.send(answer(1));
    await endOfTick();
    writer.release();
    expect(kinds(writes)).toEqual(['p1', 'r1']);
    expect(vi.getTimerCount()).toBe(0);
    await within(answered, 1_000, 'answer settled by release');
  });

  test('a stream that dies while an answer waits: the send rejects with ConnectionClosedError, no timer left', async () => {
    const { stream, writes } = recorder();
    const writer = new MessageWriter(stream);
    void writer.send(progress(1, 1), 1);
    const answered = writer.send(answer(1)).catch((e: unknown) => e);
    await endOfTick();
    stream.destroy(new Error('EPIPE'));
    expect(await within(answered, 1_000, 'rejection')).toBeInstanceOf(ConnectionClosedError);
    expect(vi.getTimerCount()).toBe(0);
    expect(kinds(writes)).toEqual(['p1']);
    expect(writer.queuedBytes).toBe(0);
    writer.release();
  });
});
