/**
 * `JSON.stringify` for outgoing JSON-RPC messages, with the envelope and the commonest answer
 * written by hand.
 */
import type { JsonRpcMessage } from './jsonrpc.js';

/**
 * Exactly `JSON.stringify(message)`, cheaper for the messages the engine builds. V8's generic
 * serialiser (Node 20-22) pays ~50-70 ns per object and per property, mostly looking up `toJSON`
 * along the prototype chain; string concatenation pays a few. So:
 *
 * - the envelope of an answer, a request or a notification, as the engine builds them, is
 *   concatenated, and only `result` or `params` is serialised;
 * - a result made of text content blocks only (`{content: [{type: 'text', text}]}`, what a tool
 *   that returns a string answers) is concatenated too, with only each `text` serialised.
 *
 * Anything else goes to `JSON.stringify` whole, so errors (a BigInt, a cycle) are V8's own.
 *
 * @example
 * stringifyMessage({ jsonrpc: '2.0', id: 1, result: {} }); // '{"jsonrpc":"2.0","id":1,"result":{}}'
 */
export function stringifyMessage(message: JsonRpcMessage): string {
  const m = message as unknown as Record<string, unknown>;
  if (m.jsonrpc !== '2.0' || !isPlainObject(m)) return JSON.stringify(message);
  const result = m.result;
  if (result !== undefined) {
    const id = idJson(m.id);
    if (id !== undefined && isMember(result) && hasExactly(m, RESULT_KEYS))
      return `{"jsonrpc":"2.0","id":${id},"result":${textResult(result) ?? JSON.stringify(result)}}`;
    return JSON.stringify(message);
  }
  const method = m.method;
  const params = m.params;
  if (typeof method === 'string' && isMember(params)) {
    if (m.id === undefined) {
      if (hasExactly(m, NOTIFICATION_KEYS))
        return `{"jsonrpc":"2.0","method":${quote(method)},"params":${JSON.stringify(params)}}`;
    } else {
      const id = idJson(m.id);
      if (id !== undefined && hasExactly(m, REQUEST_KEYS))
        return `{"jsonrpc":"2.0","id":${id},"method":${quote(method)},"params":${JSON.stringify(params)}}`;
    }
  }
  return JSON.stringify(message);
}

// The envelopes written by hand: exactly these enumerable keys (own or inherited, as for…in sees
// them), in this order. Any other message (no params, extra keys) goes to JSON.stringify whole.
const RESULT_KEYS = ['jsonrpc', 'id', 'result'] as const;
const REQUEST_KEYS = ['jsonrpc', 'id', 'method', 'params'] as const;
const NOTIFICATION_KEYS = ['jsonrpc', 'method', 'params'] as const;

function hasExactly(object: object, keys: readonly string[]): boolean {
  let index = 0;
  for (const key in object) {
    if (key !== keys[index]) return false;
    index++;
  }
  return index === keys.length;
}

/**
 * An object member without its own `toJSON` (which JSON.stringify calls with the member's key, and
 * a separate stringify would not pass).
 */
function isMember(value: unknown): value is object {
  return typeof value === 'object' && value !== null && (value as { toJSON?: unknown }).toJSON === undefined;
}

/** The JSON of a request id, or undefined when it is not a number or a string. */
function idJson(id: unknown): string | undefined {
  if (typeof id === 'number') return Number.isFinite(id) ? `${id}` : 'null';
  return typeof id === 'string' ? quote(id) : undefined;
}

/** `{content: [text blocks]}` as JSON, or undefined when `value` is anything else. */
function textResult(value: unknown): string | undefined {
  if (!isPlainObject(value)) return undefined;
  let content: unknown;
  let keys = 0;
  for (const key in value) {
    if (key !== 'content' || ++keys > 1) return undefined;
    content = value[key];
  }
  if (!Array.isArray(content) || Object.getPrototypeOf(content) !== Array.prototype) return undefined;
  if ((content as { toJSON?: unknown }).toJSON !== undefined || content.length === 0) return undefined;
  let out = '{"content":[';
  for (let i = 0; i < content.length; i++) {
    const text = textBlock(content[i]);
    if (text === undefined) return undefined;
    out += (i === 0 ? '{"type":"text","text":' : ',{"type":"text","text":') + text + '}';
  }
  return out + ']}';
}

/** The JSON of a `{type: 'text', text}` block's text (exactly these keys), or undefined. */
function textBlock(block: unknown): string | undefined {
  if (!isPlainObject(block)) return undefined;
  let index = 0;
  for (const key in block) {
    if (key !== (index === 0 ? 'type' : 'text') || ++index > 2) return undefined;
  }
  if (index !== 2 || block.type !== 'text' || typeof block.text !== 'string') return undefined;
  return JSON.stringify(block.text);
}

// Printable ASCII but `"` and `\`: a string of these is its own JSON body.
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/** `JSON.stringify(text)`, without calling it for short plain strings (method names, ids, "2.0"). */
function quote(text: string): string {
  return text.length <= 64 && PLAIN.test(text) ? `"${text}"` : JSON.stringify(text);
}

/** An object literal's kind of object (prototype `Object.prototype`) with no `toJSON` anywhere. */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    Object.getPrototypeOf(value) === Object.prototype &&
    (value as { toJSON?: unknown }).toJSON === undefined
  );
}
