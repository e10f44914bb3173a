/**
 * Issue 14: simple raw schemas skip the meta-schema check at registration and accept valid values
 * without running @cfworker/json-schema. Every verdict and message must still be the library's:
 * each case below is judged twice, once through the cheap path and once through the library alone
 * (the same schema plus `minProperties: 0`, a no-op keyword that makes it "not simple").
 */
import { Validator } from '@cfworker/json-schema';
import { describe, expect, test, vi } from 'vitest';
import {
  assertValidJsonSchema,
  compileJsonSchema,
  compileSchema,
  type JsonSchema,
} from '../../src/core/schema/index.js';
import { META_SCHEMA_2020_12 } from '../../src/core/schema/meta-schema-2020-12.js';
import { isSimpleSchema, surelyValid } from '../../src/core/schema/simple-schema.js';
import { McpServer } from 'keel-mcp/server';

// Counts the library validators built and their runs, to pin what the cheap path is for: none on
// success (the meta-schema check at registration included).
const built = vi.hoisted(() => ({ count: 0, runs: 0 }));
vi.mock('@cfworker/json-schema', async (importOriginal) => {
  const library = await importOriginal<typeof import('@cfworker/json-schema')>();
  class CountedValidator extends library.Validator {
    constructor(...args: ConstructorParameters<typeof library.Validator>) {
      super(...args);
      built.count++;
    }
    override validate(instance: unknown): ReturnType<typeof library.Validator.prototype.validate> {
      built.runs++;
      return super.validate(instance);
    }
  }
  return { ...library, Validator: CountedValidator };
});

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
  {
    type: 'object',
    properties: {
      unit: { enum: ['c', 'f', 1, null, true] },
      n: { type: 'number', minimum: 0, maximum: 10, exclusiveMaximum: 10 },
      m: { exclusiveMinimum: -1.5 },
      s: { type: 'string', minLength: 2, maxLength: 3 },
      list: { type: 'array', minItems: 1, maxItems: 2 },
    },
  },
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
  { unit: 'c' },
  { unit: 'k' },
  { unit: null },
  { unit: 1 },
  { unit: ['c'] },
  { n: 0, m: -1 },
  { n: 10 },
  { n: -0.5 },
  { m: -1.5 },
  { n: Number.NaN, m: Number.NaN },
  { s: 'ab' },
  { s: 'abcd' },
  { s: 'a' },
  { s: '😀😀' },
  { s: '😀' },
  { s: '\ud83d' },
  { s: '\ud83da' },
  { s: 'a\ude00\ud83d' },
  { list: [1] },
  { list: [] },
  { list: [1, 2, 3] },
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
      { minLength: -1 },
      { maxItems: 1.5 },
      { enum: 'a' },
      { maximum: 'ten' },
    ];
    for (const schema of bad) {
      expect(isSimpleSchema(schema)).toBe(false);
      expect(() => assertValidJsonSchema(schema, 'mine')).toThrow(
        /The mine schema is not a valid JSON Schema/,
      );
    }
    // Not simple, yet valid: left to the library, which accepts them.
    const valid: JsonSchema[] = [
      { type: 'string', pattern: '^a' },
      { $ref: '#' },
      { description: undefined },
      { enum: [{ a: 1 }] },
      { minimum: Number.POSITIVE_INFINITY },
    ];
    for (const schema of valid) {
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

  test('no library validator is built for a simple schema until a value fails, then one is reused', () => {
    const before = built.count;
    const runs = built.runs;
    const server = new McpServer({ name: 's', version: '1' });
    const input = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] };
    server.tool('echo', { description: 'Echo', input }, ({ text }) => String(text));
    const check = compileSchema(input, 'input', 'tool "echo" input');
    expect(check.validate({ text: 'a' })).toEqual({ ok: true, value: { text: 'a' } });
    // Neither the registration (no meta-schema check) nor a valid value built or ran one.
    expect([built.count, built.runs]).toEqual([before, runs]);
    expect(check.validate({})).toMatchObject({ ok: false });
    expect(check.validate({ text: 1 })).toMatchObject({ ok: false });
    expect(built.count).toBe(before + 1);
    // A schema that is not simple still gets its validator at compile time, as before.
    compileJsonSchema({ type: 'string', pattern: '^a' }, 'test');
    expect(built.count).toBeGreaterThan(before + 1);
  });
});
