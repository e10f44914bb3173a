/**
 * `parseLine` decodes with Node's `isAscii`/`isUtf8` checks instead of a fatal TextDecoder (much
 * cheaper per line); the verdict must not change. The reference below is the previous decoder.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { InboundFault } from '../../src/core/transport.js';
import { parseLine } from '../../src/transports/stdio/parse-line.js';

const fatal = new TextDecoder('utf-8', { fatal: true });

/** What the previous implementation answered: the parsed value, 'blank', or the fault's code/message. */
function reference(bytes: Uint8Array): unknown {
  let end = bytes.length;
  if (end > 0 && bytes[end - 1] === 13) end--;
  if (end === 0) return 'blank';
  let text: string;
  try {
    text = fatal.decode(bytes.subarray(0, end));
  } catch {
    return { fault: 'Parse error: message is not valid UTF-8' };
  }
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return text.trim() === '' ? 'blank' : { fault: 'Parse error' };
  }
}

function actual(bytes: Uint8Array): unknown {
  const item = parseLine(bytes);
  if (item === undefined) return 'blank';
  if (item instanceof InboundFault) return { fault: item.reply.error.message };
  return { value: item };
}

const encoder = new TextEncoder();

describe('parseLine', () => {
  test('ASCII, UTF-8, a byte order mark, CR and blank lines', () => {
    expect(actual(encoder.encode('{"a":1}'))).toEqual({ value: { a: 1 } });
    expect(actual(encoder.encode('{"a":"é😀"}\r'))).toEqual({ value: { a: 'é😀' } });
    expect(actual(encoder.encode('\uFEFF{"a":2}'))).toEqual({ value: { a: 2 } });
    expect(actual(encoder.encode(' \t '))).toBe('blank');
    expect(actual(encoder.encode('\r'))).toBe('blank');
    expect(actual(new Uint8Array([0x7b, 0xc3, 0x28, 0x7d]))).toEqual({
      fault: 'Parse error: message is not valid UTF-8',
    });
    expect(actual(encoder.encode('{oops'))).toEqual({ fault: 'Parse error' });
  });

  test('a plain Uint8Array view (not a Buffer) of a larger buffer is read in place', () => {
    const whole = encoder.encode('xx{"b":[1,2]}yy');
    expect(actual(whole.subarray(2, whole.length - 2))).toEqual({ value: { b: [1, 2] } });
  });

  test('same verdict as the fatal TextDecoder on arbitrary bytes and on JSON texts', () => {
    const bytes = fc.uint8Array({ maxLength: 24 });
    const json = fc
      .tuple(fc.jsonValue({ maxDepth: 2 }), fc.constantFrom('', '\r', ' ', '\uFEFF'))
      .map(([value, extra]) => {
        const text = JSON.stringify(value);
        return encoder.encode(extra === '\uFEFF' ? extra + text : text + extra);
      });
    // Valid UTF-8 with one byte damaged: truncated or overlong sequences, stray continuations.
    const damaged = fc
      .tuple(
        fc.string({ unit: 'grapheme', minLength: 1, maxLength: 8 }),
        fc.nat(),
        fc.integer({ min: 0x80, max: 0xff }),
      )
      .map(([text, at, byte]) => {
        const out = encoder.encode(text);
        if (out.length > 0) out[at % out.length] = byte;
        return out;
      });
    fc.assert(
      fc.property(fc.oneof(bytes, json, damaged), (line) => {
        expect(actual(line)).toEqual(reference(line));
        expect(actual(Buffer.from(line))).toEqual(reference(line));
      }),
      { numRuns: 3000, seed: 20261126 },
    );
  });
});
