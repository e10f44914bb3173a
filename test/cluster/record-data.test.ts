/**
 * Issue 28: the two formats another process reads to carry a session on — the record's data
 * (owner, principal, snapshot) and the request id inside a stream id — read defensively: what this
 * version cannot read is never adopted or answered.
 */
import { expect, test } from 'vitest';
import { parseRecordData, recordDataText } from '../../src/hosts/http/cluster/record-data.js';
import { requestIdOfStream, requestStreamId } from '../../src/transports/http/server-wire/stream-ids.js';

const record = (data: string | undefined) => ({
  id: 's',
  createdAt: 0,
  lastSeenAt: 0,
  ...(data === undefined ? {} : { data }),
});

test('issue 28: record data round-trips; a handed-over record names no owner', () => {
  const snapshot = {
    v: '2025-11-25',
    c: { elicitation: {} },
    i: { name: 'c', version: '1' },
    n: 1 as const,
    l: 'error',
    s: ['test://a'],
  };
  const text = recordDataText({ owner: 'node-a', principal: 'sub:alice', snapshot });
  expect(parseRecordData(record(text))).toEqual({ owner: 'node-a', principal: 'sub:alice', snapshot });
  expect(parseRecordData(record(recordDataText({ owner: null, snapshot })))).toEqual({
    owner: null,
    principal: undefined,
    snapshot,
  });
  // Issue 12's format (owner only) still reads: routed, never adopted (no snapshot).
  expect(parseRecordData(record('{"owner":"node-b"}'))).toEqual({
    owner: 'node-b',
    principal: undefined,
    snapshot: undefined,
  });
});

test('issue 28: unreadable record data is no record; a snapshot this version cannot restore is dropped', () => {
  for (const bad of [undefined, 'not json', '[]', 'null', '{"owner":3}', '{}']) {
    expect(parseRecordData(record(bad))).toBeUndefined();
  }
  for (const s of [
    { v: '1999-01-01' },
    { v: '2025-11-25', l: 'loud' },
    { v: '2025-11-25', s: [1] },
    { v: '2025-11-25', c: 'x' },
    'x',
  ]) {
    expect(parseRecordData(record(JSON.stringify({ owner: 'n', s })))).toEqual({
      owner: 'n',
      principal: undefined,
      snapshot: undefined,
    });
  }
});

test('issue 28: a stream id names its request; ids with any characters survive, long ones are left out', () => {
  for (const id of [0, 7, -3, 1.5, 'a', 'x~y_z{}', 'é😀', '']) {
    const streamId = requestStreamId('sess-1', 'ab12cd34.', 3, id);
    expect(streamId.startsWith('sess-1:ab12cd34.3')).toBe(true);
    // Nothing that event ids (`_`) or Redis hash tags (`{`, `}`) use.
    expect(streamId.slice('sess-1:'.length)).not.toMatch(/[_{}]/);
    expect(requestIdOfStream(streamId)).toBe(id);
  }
  const long = 'x'.repeat(200);
  expect(requestStreamId('s', '', 1, long)).toBe('s:1');
  expect(requestIdOfStream('s:1')).toBeUndefined();
  expect(requestIdOfStream('s:1~%%%')).toBeUndefined();
  expect(requestIdOfStream(`s:1~${btoa('{"a":1}')}`)).toBeUndefined();
});
