/**
 * The splitter's ASCII fast path: a sink with `text` gets the lines of pure-ASCII chunks as
 * strings (the chunk decoded once) and every other line as bytes. Whatever path a line takes, the
 * lines, their order, the oversize reports, the pause offsets and the memory bound must be those
 * of the byte path.
 */
import { describe, expect, test } from 'vitest';
import { InboundFault } from '../../src/core/transport.js';
import { LineSplitter } from '../../src/transports/stdio/line-splitter.js';
import { parseAsciiLine, parseLine } from '../../src/transports/stdio/parse-line.js';

type Seen = { via: 'text' | 'bytes'; line: string };

function collect(maxBytes = 1024, stopAfter?: string) {
  const seen: Seen[] = [];
  const oversize: number[] = [];
  const splitter = new LineSplitter(maxBytes, {
    line: (bytes) => {
      const line = Buffer.from(bytes).toString('utf8');
      seen.push({ via: 'bytes', line });
      return line !== stopAfter;
    },
    text: (line) => {
      seen.push({ via: 'text', line });
      return line !== stopAfter;
    },
    oversize: (max) => oversize.push(max),
  });
  return { splitter, seen, lines: () => seen.map((s) => s.line), oversize };
}

describe('LineSplitter, ASCII text path', () => {
  test('ASCII chunks go as text, a non-ASCII chunk and a line continued across chunks as bytes', () => {
    const { splitter, seen } = collect();
    splitter.push(Buffer.from('{"a":1}\n{"b"'));
    splitter.push(Buffer.from(':2}\r\n{"c":3}\r\n'));
    splitter.push(Buffer.from('"ø"\n"x"\n'));
    splitter.push(Buffer.from('\n'));
    expect(seen).toEqual([
      { via: 'text', line: '{"a":1}' },
      { via: 'bytes', line: '{"b":2}\r' },
      { via: 'text', line: '{"c":3}\r' },
      { via: 'bytes', line: '"ø"' },
      { via: 'bytes', line: '"x"' },
      { via: 'text', line: '' },
    ]);
  });

  test('stopping after a line returns the chunk offset right after it, in both paths', () => {
    const chunk = Buffer.from('ab\nSTOP\ncd\n');
    const text = collect(1024, 'STOP');
    expect(text.splitter.push(chunk)).toBe(8);
    expect(text.lines()).toEqual(['ab', 'STOP']);
    // The rest handed back later starts on a line boundary.
    expect(text.splitter.push(chunk.subarray(8))).toBe(3);
    expect(text.lines()).toEqual(['ab', 'STOP', 'cd']);

    // After a continued line: the offset counts from the chunk start, not from the text.
    const continued = collect(1024, 'STOP');
    continued.splitter.push(Buffer.from('par'));
    expect(continued.splitter.push(Buffer.from('t\nx\nSTOP\nrest\n'))).toBe(9);
    expect(continued.lines()).toEqual(['part', 'x', 'STOP']);

    const bytes = collect(1024, 'STOP');
    expect(bytes.splitter.push(Buffer.from('é\nSTOP\ncd\n'))).toBe(8); // é is 2 bytes
    expect(bytes.lines()).toEqual(['é', 'STOP']);
  });

  test('a line over the limit inside an ASCII chunk is reported and skipped', () => {
    const { splitter, lines, oversize } = collect(4);
    splitter.push(Buffer.from('1234\n12345\nok\n12'));
    splitter.push(Buffer.from('345\nend\n'));
    expect(lines()).toEqual(['1234', 'ok', 'end']);
    expect(oversize).toEqual([4, 4]);
  });

  test('the held tail of an ASCII chunk is a copy: reusing the chunk does not change it', () => {
    const { splitter, lines } = collect();
    const chunk = Buffer.from('{"a":1}\n{"b":');
    splitter.push(chunk);
    chunk.fill(0x7a);
    splitter.push(Buffer.from('2}\n'));
    expect(lines()).toEqual(['{"a":1}', '{"b":2}']);
  });

  test('memory stays bounded while a huge ASCII line streams in', () => {
    const { splitter, lines, oversize } = collect(64 * 1024);
    const chunk = Buffer.alloc(16 * 1024, 0x61);
    let peak = 0;
    for (let i = 0; i < 1024; i++) {
      splitter.push(chunk);
      peak = Math.max(peak, splitter.bufferedBytes);
    }
    expect(peak).toBeLessThanOrEqual(64 * 1024);
    splitter.push(Buffer.from('tail\n{"next":true}\n'));
    expect(oversize).toEqual([64 * 1024]);
    expect(lines()).toEqual(['{"next":true}']);
  });

  test('a plain Uint8Array chunk works like a Buffer', () => {
    const { splitter, seen } = collect();
    splitter.push(new TextEncoder().encode('x\ny\n'));
    expect(seen).toEqual([
      { via: 'text', line: 'x' },
      { via: 'text', line: 'y' },
    ]);
  });
});

describe('parseAsciiLine', () => {
  test('answers exactly as parseLine does for ASCII lines', () => {
    const cases = [
      '{"jsonrpc":"2.0","id":1,"method":"ping"}\r',
      '',
      '\r',
      '  \t',
      '{"jsonrpc":',
      '[1,2]',
      ' 7 \r',
    ];
    for (const line of cases) {
      const fromBytes = parseLine(Buffer.from(line));
      const fromText = parseAsciiLine(line);
      if (fromBytes instanceof InboundFault) {
        expect(fromText).toBeInstanceOf(InboundFault);
        expect((fromText as InboundFault).reply).toEqual(fromBytes.reply);
      } else expect(fromText).toEqual(fromBytes);
    }
  });
});

describe('LineSplitter, held tails', () => {
  test('the tail of a non-ASCII chunk is a copy too (a Buffer#slice would be a view)', () => {
    const lines: string[] = [];
    const splitter = new LineSplitter(1024, {
      line: (bytes) => lines.push(Buffer.from(bytes).toString('utf8')),
      oversize: () => undefined,
    });
    const chunk = Buffer.from('"é"\n{"b":');
    splitter.push(chunk);
    chunk.fill(0x7a);
    splitter.push(Buffer.from('2}\n'));
    expect(lines).toEqual(['"é"', '{"b":2}']);
  });
});
