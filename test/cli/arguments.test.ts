/**
 * `key=value` typing from the input schema, `key:=json`, `--args`, and the usage errors.
 */
import { describe, expect, test } from 'vitest';
import { missingRequired, parseArguments, propertyTypes } from '../../src/cli/tool-arguments.js';
import { UsageError } from '../../src/cli/usage.js';

const schema = {
  type: 'object',
  properties: {
    n: { type: 'integer' },
    x: { type: 'number' },
    on: { type: 'boolean' },
    none: { type: 'null' },
    tags: { type: 'array', items: { type: 'string' } },
    meta: { type: 'object' },
    word: { type: 'string' },
    maybe: { anyOf: [{ type: 'integer' }, { type: 'null' }] },
    either: { type: ['integer', 'string'] },
    level: { enum: [1, 2, 3] },
  },
};

function usageError(run: () => unknown): UsageError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return error as UsageError;
  }
  throw new Error('expected a UsageError');
}

describe('key=value typed from the schema', () => {
  test('every JSON type from its text; strings as is', () => {
    expect(
      parseArguments(
        [
          'n=-7',
          'x=2.5e1',
          'on=false',
          'none=null',
          'tags=["a","b"]',
          'meta={"k":{"j":1}}',
          'word=42',
          'maybe=null',
        ],
        schema,
      ),
    ).toEqual({
      n: -7,
      x: 25,
      on: false,
      none: null,
      tags: ['a', 'b'],
      meta: { k: { j: 1 } },
      word: '42',
      maybe: null,
    });
  });

  test('a union takes the first non-string type that fits, else the string', () => {
    expect(parseArguments(['either=5'], schema)).toEqual({ either: 5 });
    expect(parseArguments(['either=five'], schema)).toEqual({ either: 'five' });
    expect(parseArguments(['maybe=3'], schema)).toEqual({ maybe: 3 });
    expect(parseArguments(['level=2'], schema)).toEqual({ level: 2 });
  });

  test('a key the schema does not describe is a string; = in the value is kept', () => {
    expect(parseArguments(['other=1', 'word=a=b'], schema)).toEqual({ other: '1', word: 'a=b' });
    expect(parseArguments(['n=1'], undefined)).toEqual({ n: '1' });
  });

  test('key:=json forces raw JSON, whatever the schema says', () => {
    expect(parseArguments(['word:=42', 'n:="x"', 'other:={"a":[1]}'], schema)).toEqual({
      word: 42,
      n: 'x',
      other: { a: [1] },
    });
  });

  test('--args gives them all at once; key=value pairs override it', () => {
    expect(parseArguments(['n=2'], schema, '{"n":1,"word":"w"}')).toEqual({ n: 2, word: 'w' });
  });

  test('a value that does not fit names the key and the type', () => {
    expect(usageError(() => parseArguments(['n=1.5'], schema)).message).toBe(
      'n: expected integer, got "1.5"',
    );
    expect(usageError(() => parseArguments(['x=abc'], schema)).message).toBe('x: expected number, got "abc"');
    expect(usageError(() => parseArguments(['on=yes'], schema)).message).toBe(
      'on: expected boolean, got "yes"',
    );
    expect(usageError(() => parseArguments(['tags={}'], schema)).message).toBe(
      'tags: expected array, got "{}"',
    );
    expect(usageError(() => parseArguments(['meta=[1]'], schema)).message).toBe(
      'meta: expected object, got "[1]"',
    );
    expect(usageError(() => parseArguments(['maybe=x'], schema)).message).toBe(
      'maybe: expected integer or null, got "x"',
    );
    expect(usageError(() => parseArguments([`n=${2 ** 60}`], schema)).message).toContain(
      'n: expected integer',
    );
  });

  test('malformed pairs, bad JSON and a key given twice are usage errors', () => {
    expect(usageError(() => parseArguments(['novalue'], schema)).message).toContain('is not key=value');
    expect(usageError(() => parseArguments(['=1'], schema)).message).toContain('is not key=value');
    expect(usageError(() => parseArguments([':=1'], schema)).message).toContain('is not key=value');
    expect(usageError(() => parseArguments(['a:={'], schema)).message).toBe(
      'a: "{" is not JSON (key:=<json>)',
    );
    expect(usageError(() => parseArguments(['n=1', 'n=2'], schema)).message).toBe('n: given twice');
    expect(usageError(() => parseArguments([], schema, '[1]')).message).toBe(
      '--args: expected a JSON object',
    );
    expect(usageError(() => parseArguments([], schema, '{')).message).toContain('--args: not JSON');
  });
});

test('propertyTypes reads type lists, anyOf/oneOf branches and enum values', () => {
  expect(propertyTypes(schema, 'either')).toEqual(['integer', 'string']);
  expect(propertyTypes(schema, 'maybe')).toEqual(['integer', 'null']);
  expect(propertyTypes(schema, 'level')).toEqual(['integer']);
  expect(propertyTypes(schema, 'missing')).toEqual([]);
  expect(propertyTypes({ properties: { toString: 1 } }, 'constructor')).toEqual([]);
});

test('issue 23 item 14: the required arguments not given, in the schema order', () => {
  const required = { type: 'object', required: ['city', 'days', 'unit'] };
  expect(missingRequired(required, { days: 3 })).toEqual(['city', 'unit']);
  expect(missingRequired(required, { city: 'Oslo', days: null, unit: 'C' })).toEqual([]);
  // Not inherited keys, not malformed lists.
  expect(missingRequired({ required: ['toString', 7] }, {})).toEqual(['toString']);
  expect(missingRequired({ required: 'city' }, {})).toEqual([]);
  expect(missingRequired(undefined, {})).toEqual([]);
});
