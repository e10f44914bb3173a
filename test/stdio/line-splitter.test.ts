import { describe, expect, test } from 'vitest';
import { InboundFault } from '../../src/core/transport.js';
import { LineSplitter } from '../../src/transports/stdio/line-splitter.js';
import { oversizeFault, parseLine } from '../../src/transports/stdio/parse-line.js';

function collect(maxBytes = 1024) {
  const lines: string[] = [];
  const oversize: number[] = [];
  const splitter = new LineSplitter(maxBytes, {
    line: (bytes) => lines.push(Buffer.from(bytes).toString('utf8')),
    oversize: (max) => oversize.push(max),
  });
  return { splitter, lines, oversize };
}

describe('LineSplitter', () => {
  test('splits lines within and across chunks, keeping \\r for the parser', () => {
    const { splitter, lines } = collect();
    splitter.push(Buffer.from('{"a":1}\n{"b"'));
    splitter.push(Buffer.from(':2}\r\n'));
    splitter.push(Buffer.from('x'));
    splitter.push(Buffer.from('y'));
    splitter.push(Buffer.from('z\n\n'));
    expect(lines).toEqual(['{"a":1}', '{"b":2}\r', 'xyz', '']);
  });

  test('a multi-byte character split across chunks is reassembled intact', () => {
    const { splitter, lines } = collect();
    const bytes = Buffer.from('"ø€𝄞"\n');
    for (const byte of bytes) splitter.push(Uint8Array.of(byte));
    expect(lines).toEqual(['"ø€𝄞"']);
  });

  test('a last line without a newline is delivered at end()', () => {
    const { splitter, lines } = collect();
    splitter.push(Buffer.from('{"a":1}\n{"b":2}'));
    splitter.end();
    expect(lines).toEqual(['{"a":1}', '{"b":2}']);
  });

  test('a line over the limit is reported once and skipped to the next newline', () => {
    const { splitter, lines, oversize } = collect(10);
    splitter.push(Buffer.from('ok\n' + 'x'.repeat(8)));
    splitter.push(Buffer.from('y'.repeat(8)));
    splitter.push(Buffer.from('z'.repeat(8) + '\nafter\n'));
    splitter.push(Buffer.from('w'.repeat(11) + '\nlast\n'));
    expect(oversize).toEqual([10, 10]);
    expect(lines).toEqual(['ok', 'after', 'last']);
  });

  test('memory stays bounded while a huge line streams in', () => {
    const { splitter, lines, oversize } = collect(64 * 1024);
    const chunk = Buffer.alloc(16 * 1024, 0x61);
    let peak = 0;
    // 64 MiB without a newline, in 16 KiB chunks.
    for (let i = 0; i < 4096; i++) {
      splitter.push(chunk);
      peak = Math.max(peak, splitter.bufferedBytes);
    }
    expect(peak).toBeLessThanOrEqual(64 * 1024);
    expect(splitter.bufferedBytes).toBe(0);
    splitter.push(Buffer.from('tail\n{"next":true}\n'));
    expect(oversize).toHaveLength(1);
    expect(lines).toEqual(['{"next":true}']);
  });

  test('exactly maxBytes is allowed, one more is not', () => {
    const { splitter, lines, oversize } = collect(4);
    splitter.push(Buffer.from('1234\n12345\n'));
    splitter.push(Buffer.from('12'));
    splitter.push(Buffer.from('34\n12'));
    splitter.push(Buffer.from('345\n'));
    expect(lines).toEqual(['1234', '1234']);
    expect(oversize).toEqual([4, 4]);
  });
});

describe('parseLine', () => {
  test('parses JSON, tolerates \\r, skips blank lines', () => {
    expect(parseLine(Buffer.from('{"jsonrpc":"2.0","id":1,"method":"ping"}\r'))).toEqual({
      jsonrpc: '2.0',
      id: 1,
      method: 'ping',
    });
    expect(parseLine(Buffer.from(''))).toBeUndefined();
    expect(parseLine(Buffer.from('\r'))).toBeUndefined();
    expect(parseLine(Buffer.from('  \t'))).toBeUndefined();
  });

  test('bad JSON and invalid UTF-8 become -32700 faults with id null', () => {
    const bad = parseLine(Buffer.from('{"jsonrpc":'));
    expect(bad).toBeInstanceOf(InboundFault);
    expect((bad as InboundFault).reply).toMatchObject({ id: null, error: { code: -32700 } });
    const invalid = parseLine(Uint8Array.of(0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d));
    expect(invalid).toBeInstanceOf(InboundFault);
    expect((invalid as InboundFault).reply).toMatchObject({ id: null, error: { code: -32700 } });
    expect((invalid as InboundFault).reply.error.message).toMatch(/UTF-8/);
  });

  test('the oversize fault is a -32600 with id null that names the limit', () => {
    expect(oversizeFault(1024).reply).toMatchObject({ id: null, error: { code: -32600 } });
    expect(oversizeFault(1024).reply.error.message).toContain('1024');
  });
});
