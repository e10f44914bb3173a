/**
 * An inbound request tells the nested requests its handler made when it is aborted. The first
 * watcher is kept without a Set; these pin what the Set did: every live watcher told once, in the
 * order they came, none after it unwatched, a late one at once.
 */
import { describe, expect, test } from 'vitest';
import { InflightRequest, type AbortWatcher } from '../../src/core/engine/inbound.js';

function recorder(log: string[], name: string): AbortWatcher {
  return { parentAborted: (reason) => log.push(`${name}:${String(reason)}`) };
}

describe('InflightRequest watchers', () => {
  test('one watcher is told once; an unwatched one is not', () => {
    const log: string[] = [];
    const entry = new InflightRequest(1, 'tools/call', undefined);
    const a = recorder(log, 'a');
    entry.watch(a);
    entry.abort('first');
    entry.abort('second');
    expect(log).toEqual(['a:first']);

    const other = new InflightRequest(2, 'tools/call', undefined);
    other.watch(a);
    other.unwatch(a);
    other.abort('x');
    expect(log).toEqual(['a:first']);
  });

  test('several watchers are told in the order they came, across unwatch and re-watch', () => {
    const log: string[] = [];
    const entry = new InflightRequest(1, 'tools/call', undefined);
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((name) => recorder(log, name));
    entry.watch(a!);
    entry.watch(a!); // twice: still told once
    entry.watch(b!);
    entry.unwatch(a!);
    entry.watch(c!);
    entry.watch(a!);
    entry.unwatch(d!); // never watched: harmless
    entry.abort('r');
    expect(log).toEqual(['b:r', 'c:r', 'a:r']);
  });

  test('after the first watcher left, the next one is still told; a watch after the abort is told at once', () => {
    const log: string[] = [];
    const entry = new InflightRequest(1, 'tools/call', undefined);
    const [a, b, late] = ['a', 'b', 'late'].map((name) => recorder(log, name));
    entry.watch(a!);
    entry.unwatch(a!);
    entry.watch(b!);
    entry.abort('r');
    entry.watch(late!);
    expect(log).toEqual(['b:r', 'late:r']);
  });
});
