/**
 * stringifyMessage writes the envelope of an engine-built answer by hand: every message must come
 * out exactly as `JSON.stringify` writes it, whether it takes the shortcut or not.
 */
import { describe, expect, test } from 'vitest';
import type { JsonRpcMessage } from '../../src/core/jsonrpc.js';
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
  ];
}

describe('stringifyMessage', () => {
  test('writes every message exactly as JSON.stringify does', () => {
    for (const message of cases()) {
      expect(stringifyMessage(message as JsonRpcMessage)).toBe(JSON.stringify(message));
    }
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
