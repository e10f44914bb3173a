/**
 * Issue 12, second review (FX3 item 3): a close that comes while live events are held (an
 * asynchronous store has not answered yet) waits for them, but only so long, and only for what
 * was held before it: events written after the close was requested are dropped (the store keeps
 * them for a resumption).
 */
import { expect, test } from 'vitest';
import type { Logger } from 'keel-mcp/core';
import { OutputBudget } from '../../src/transports/http/server-wire/output-budget.js';
import { SseWriter } from '../../src/transports/http/server-wire/sse-writer.js';
import { useProcessGuard, within } from '../helpers/guard.js';
import { deferred } from './support/harness.js';

useProcessGuard();

const logger: Logger = { debug() {}, error() {} };

function writerWith(retryMs: number) {
  const written: string[] = [];
  const ended = deferred<'end' | 'abort'>();
  const writer = new SseWriter(
    { writerEnded() {} },
    { keepAlive: undefined, budget: new OutputBudget(1 << 20, 1 << 24), logger, retryMs },
  );
  writer.attach({
    write: (text) => (written.push(text), 0),
    queued: () => 0,
    end: () => ended.resolve('end'),
    abort: () => ended.resolve('abort'),
  });
  return { writer, written, ended: ended.promise };
}

test('a close while events are held writes what was held before it, drops what came after, then ends', async () => {
  const { writer, written, ended } = writerWith(60_000);
  writer.hold();
  writer.event('1', '"before close"');
  writer.close();
  writer.event('2', '"after close"');
  expect(writer.open).toBe(true); // still waiting for the held events
  writer.release(new Set());
  expect(await within(ended)).toBe('end');
  expect(written).toEqual(['id: 1\nevent: message\ndata: "before close"\n\n']);
});

test('a close while events are held ends the stream even if they are never released (a hung store)', async () => {
  const { writer, written, ended } = writerWith(20);
  writer.hold();
  writer.event('1', '"held"');
  writer.close();
  expect(await within(ended, 5_000, 'the bounded close')).toBe('end');
  expect(writer.open).toBe(false);
  expect(written).toEqual([]);
  writer.release(new Set()); // a late release writes nothing
  expect(written).toEqual([]);
});
