/**
 * stringifyMessage writes the envelope of every engine-built message, and text-only results, by
 * hand: every message must come out exactly as `JSON.stringify` writes it, whether it takes a
 * shortcut or not.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import type { JsonRpcMessage } from 'keel-mcp/core';
import { stringifyMessage } from '../../src/core/stringify-message.js';

const date = new Date(0);

function cases(): unknown[] {
  const inherited = Object.create({ extra: 1 }) as Record<string, unknown>;
  Object.assign(inherited, { jsonrpc: '2.0', id: 1, result: {} });
  const hidden = { jsonrpc: '2.0', id: 2, result: { a: 1 } };
  Object.defineProperty(hidden, 'secret', { value: 1, enumerable: false });
  class WithToJson {
    jsonrpc = '2.0';
    id = 3;
    result = { a: 1 };
    toJSON() {
      return { replaced: true };
    }
  }
  return [
    { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'hi "there"\n\u2028é' }] } },
    { jsonrpc: '2.0', id: 'a"b\\c', result: {} },
    { jsonrpc: '2.0', id: Number.NaN, result: {} },
    { jsonrpc: '2.0', id: -0, result: [1, undefined, () => 1] },
    {
      jsonrpc: '2.0',
      id: 4,
      result: { when: date, skip: undefined, nested: { toJSON: (key: string) => key } },
    },
    { jsonrpc: '2.0', id: 5, result: { toJSON: (key: string) => `result toJSON got "${key}"` } },
    { id: 6, jsonrpc: '2.0', result: {} }, // another key order
    { jsonrpc: '2.0', id: 7, result: {}, extra: true },
    { jsonrpc: '2.0', result: {}, id: 8 },
    { jsonrpc: '1.0', id: 9, result: {} },
    { jsonrpc: '2.0', id: null, result: {} },
    { jsonrpc: '2.0', id: 10, result: null },
    { jsonrpc: '2.0', id: 11, result: 'text' },
    { jsonrpc: '2.0', id: 12, error: { code: -32600, message: 'x' } },
    { jsonrpc: '2.0', id: 13, method: 'ping', params: {} },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    inherited,
    hidden,
    new WithToJson(),
    // Requests and notifications, members in any order, undefined members left out.
    { jsonrpc: '2.0', id: 14, method: 'sampling/createMessage', params: { messages: [], maxTokens: 1 } },
    { method: 'x', params: undefined, jsonrpc: '2.0' },
    { jsonrpc: '2.0', method: 7, params: {} },
    { jsonrpc: '2.0', method: 'x', params: () => 1 },
    { jsonrpc: '2.0', id: undefined, method: 'x' },
    { jsonrpc: undefined },
    {},
    // Text-only results, and everything just short of one.
    {
      jsonrpc: '2.0',
      id: 15,
      result: {
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: '\ud800"' },
        ],
      },
    },
    { jsonrpc: '2.0', id: 16, result: { content: [] } },
    { jsonrpc: '2.0', id: 17, result: { content: [{ text: 'b', type: 'text' }] } },
    { jsonrpc: '2.0', id: 18, result: { content: [{ type: 'text', text: 'c', annotations: {} }] } },
    { jsonrpc: '2.0', id: 19, result: { content: [{ type: 'image', text: 'd' }] } },
    { jsonrpc: '2.0', id: 20, result: { content: [{ type: 'text', text: 5 }] } },
    { jsonrpc: '2.0', id: 21, result: { content: [{ type: 'text', text: 'e' }], isError: true } },
    { jsonrpc: '2.0', id: 22, result: { content: { type: 'text', text: 'f' } } },
    { jsonrpc: '2.0', id: 23, result: { content: [{ type: 'text', text: 'g', toJSON: () => 'h' }] } },
    {
      jsonrpc: '2.0',
      id: 24,
      result: { content: Object.assign([{ type: 'text', text: 'i' }], { toJSON: () => [] }) },
    },
    { jsonrpc: '2.0', id: 25, result: { content: [{ type: 'text', text: 'j' }, undefined] } },
    { jsonrpc: '2.0', id: 26, result: { content: new (class extends Array {})() } },
    { jsonrpc: '2.0', id: 27, result: { content: [{ type: 'text' }] } },
    { jsonrpc: '2.0', id: 28, result: { content: [{ type: 'text', text: undefined }] } },
    {
      jsonrpc: '2.0',
      id: 29,
      result: { content: [Object.assign(Object.create(null), { type: 'text', text: 'k' })] },
    },
  ];
}

const text = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.constantFrom('', '"', '\\', '\u2028', '\udc00'),
);
const block = fc.oneof(
  { weight: 4, arbitrary: fc.record({ type: fc.constant('text'), text }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constantFrom('text', 'image'), text: fc.jsonValue() }) },
  { weight: 1, arbitrary: fc.record({ text, type: fc.constant('text') }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('text'), text, annotations: fc.object() }) },
);
const result = fc.oneof(
  { weight: 4, arbitrary: fc.record({ content: fc.array(block, { maxLength: 4 }) }) },
  { weight: 1, arbitrary: fc.record({ content: fc.array(block), isError: fc.boolean() }) },
  { weight: 1, arbitrary: fc.jsonValue() },
  { weight: 1, arbitrary: fc.anything() },
);
const id = fc.oneof(fc.integer(), fc.double(), text, fc.constant(null), fc.constant(undefined));
const message = fc.oneof(
  fc.record({ jsonrpc: fc.constant('2.0'), id, result }),
  fc.record({
    jsonrpc: fc.constant('2.0'),
    id,
    method: text,
    params: fc.option(fc.anything(), { nil: undefined }),
  }),
  fc.record({
    jsonrpc: fc.constant('2.0'),
    method: text,
    params: fc.option(fc.jsonValue(), { nil: undefined }),
  }),
  fc.record({ jsonrpc: fc.constant('2.0'), id, error: fc.record({ code: fc.integer(), message: text }) }),
  fc.record({ id, jsonrpc: fc.constantFrom('2.0', '1.0'), result }, { requiredKeys: [] }),
  fc.dictionary(
    fc.constantFrom('jsonrpc', 'id', 'method', 'params', 'result', 'error', 'other'),
    fc.anything(),
  ),
);

describe('stringifyMessage', () => {
  test('writes every message exactly as JSON.stringify does', () => {
    for (const message of cases()) {
      expect(stringifyMessage(message as JsonRpcMessage)).toBe(JSON.stringify(message));
    }
  });

  test('writes random messages exactly as JSON.stringify does', () => {
    fc.assert(
      fc.property(message, (m) => {
        let expected: string | undefined;
        try {
          expected = JSON.stringify(m);
        } catch {
          return; // BigInt and the like: the next test
        }
        expect(stringifyMessage(m as unknown as JsonRpcMessage)).toBe(expected);
      }),
      { numRuns: 3000 },
    );
  });

  test('fails as JSON.stringify does (BigInt, cycles), so the caller can reject that one send', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    for (const result of [{ n: 1n }, cyclic]) {
      const message = { jsonrpc: '2.0', id: 1, result } as unknown as JsonRpcMessage;
      expect(() => JSON.stringify(message)).toThrow(TypeError);
      expect(() => stringifyMessage(message)).toThrow(TypeError);
    }
  });
});
