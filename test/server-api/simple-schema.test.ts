/**
 * Issue 14: simple raw schemas skip the meta-schema check at registration and accept valid values
 * without running @cfworker/json-schema. Every verdict and message must still be the library's:
 * each case below is judged twice, once through the cheap path and once through the library alone
 * (the same schema plus `minProperties: 0`, a no-op keyword that makes it "not simple").
 */
import { Validator } from '@cfworker/json-schema';
import { describe, expect, test } from 'vitest';
import {
  assertValidJsonSchema,
  compileJsonSchema,
  compileSchema,
  type JsonSchema,
} from '../../src/core/schema/index.js';
import { META_SCHEMA_2020_12 } from '../../src/core/schema/meta-schema-2020-12.js';
import { isSimpleSchema, surelyValid } from '../../src/core/schema/simple-schema.js';

const SCHEMAS: JsonSchema[] = [
  { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: { n: { type: 'integer' }, x: { type: ['number', 'null'] }, b: { type: 'boolean' } },
    required: ['n'],
    additionalProperties: false,
  },
  {
    type: 'object',
    title: 'nested',
    properties: {
      tags: { type: 'array', items: { type: 'string', description: 'a tag' } },
      inner: { type: 'object', properties: { a: true, z: false }, additionalProperties: { type: 'number' } },
    },
  },
  { type: 'array', items: { type: 'object', required: ['id'] } },
  { properties: { a: { description: 'anything' } } },
  {},
];

const inherited = Object.create({ extra: 'from the prototype' }) as Record<string, unknown>;
inherited.text = 'own';
// `additionalProperties` covers inherited enumerable keys too: the library walks `for...in`.
const inheritedInner = Object.create({ q: 'not a number' }) as Record<string, unknown>;
const VALUES: unknown[] = [
  { text: 'hi' },
  { text: 1 },
  {},
  { text: 'hi', other: true },
  { text: undefined },
  { text: 'hi', fn: () => 1 },
  inherited,
  { n: 1 },
  { n: 1.5 },
  { n: Number.NaN },
  { n: Number.POSITIVE_INFINITY },
  { n: 2, x: null, b: false },
  { n: 2, x: 'no' },
  { n: 2, extra: 1 },
  { tags: ['a', 'b'] },
  { tags: ['a', 2] },
  // eslint-disable-next-line no-sparse-arrays
  { tags: ['a', , 'c'] },
  { inner: { a: 'x', q: 1 } },
  { inner: { q: 'x' } },
  { inner: { z: 1 } },
  { inner: inheritedInner },
  { a: undefined },
  { a: 1 },
  [{ id: 1 }, { id: 2 }],
  [{ id: 1 }, {}],
  [],
  'text',
  null,
  42,
];

const viaLibrary = (schema: JsonSchema): JsonSchema => ({ ...schema, minProperties: 0 });
const judge = (check: (value: unknown) => unknown, value: unknown): unknown => {
  try {
    return check(value);
  } catch (error) {
    return { threw: String(error) };
  }
};

describe('the cheap path for simple schemas', () => {
  test('the test schemas are simple, and their library-only twins are not', () => {
    for (const schema of SCHEMAS) {
      expect(isSimpleSchema(schema)).toBe(true);
      expect(isSimpleSchema(viaLibrary(schema))).toBe(false);
    }
  });

  test('every verdict and message equals the library-only one', () => {
    for (const schema of SCHEMAS) {
      const fast = compileJsonSchema(schema, 'test');
      const slow = compileJsonSchema(viaLibrary(schema), 'test');
      for (const value of VALUES) {
        expect([schema, value, judge(fast, value)]).toEqual([schema, value, judge(slow, value)]);
      }
    }
  });

  test('surelyValid never accepts what the library rejects or refuses', () => {
    let accepted = 0;
    for (const schema of SCHEMAS) {
      const library = new Validator(JSON.parse(JSON.stringify(schema)) as JsonSchema, '2020-12', false);
      for (const value of VALUES) {
        if (!surelyValid(schema, value)) continue;
        accepted++;
        expect([schema, value, library.validate(value).valid]).toEqual([schema, value, true]);
      }
    }
    // The cheap path is actually taken for the common case.
    expect(accepted).toBeGreaterThan(10);
  });

  test('a simple schema is valid against the 2020-12 meta-schema', () => {
    const meta = compileJsonSchema(META_SCHEMA_2020_12, 'meta');
    for (const schema of SCHEMAS) expect(meta(schema)).toEqual({ ok: true });
  });

  test('near misses are not simple and still fail the registration check', () => {
    const bad: JsonSchema[] = [
      { type: 'strnig' },
      { type: [] },
      { type: ['string', 'string'] },
      { type: 12 },
      { required: ['a', 'a'] },
      { required: 'a' },
      { properties: { a: { type: 'nope' } } },
      { properties: [] },
      { additionalProperties: 'no' },
      { items: [{ type: 'string' }] },
      { title: 1 },
      { description: null },
    ];
    for (const schema of bad) {
      expect(isSimpleSchema(schema)).toBe(false);
      expect(() => assertValidJsonSchema(schema, 'mine')).toThrow(
        /The mine schema is not a valid JSON Schema/,
      );
    }
    // Not simple, yet valid: left to the library, which accepts them.
    for (const schema of [{ type: 'string', minLength: 1 }, { $ref: '#' }, { description: undefined }]) {
      expect(isSimpleSchema(schema)).toBe(false);
      expect(() => assertValidJsonSchema(schema, 'mine')).not.toThrow();
    }
  });

  test('a cyclic or non-plain schema is not simple and keeps its registration error', () => {
    const cyclic: Record<string, unknown> = { type: 'object' };
    cyclic.properties = { self: cyclic };
    expect(isSimpleSchema(cyclic)).toBe(false);
    expect(() => compileSchema(cyclic, 'input', 'tool "x" input')).toThrow(/not a valid JSON Schema/);
    class Custom {
      type = 'string';
    }
    expect(isSimpleSchema(new Custom() as unknown as JsonSchema)).toBe(false);
  });

  test('the schema is copied at compile time: a later change to the object does not change verdicts', () => {
    const schema = { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] };
    const check = compileJsonSchema(schema, 'test');
    schema.required = [];
    expect(check({})).toMatchObject({
      ok: false,
      message: '/: Instance does not have required property "n".',
    });
    expect(check({ n: 1 })).toEqual({ ok: true });
  });
});
