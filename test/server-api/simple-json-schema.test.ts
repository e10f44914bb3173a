import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { compileJsonSchema } from '../../src/core/schema/json-validator.js';
import { compileSchema } from '../../src/core/schema/compile-schema.js';
import { compileSimpleJsonSchema, InvalidSchemaError } from '../../src/core/schema/simple-json-schema.js';

// The built-in checker must be indistinguishable from ajv on every schema it accepts: same verdict,
// same message (the model reads it), in all three dialects. ajv is the oracle here.

const NAMES = ['a', 'b', 'text', 'a/b', 'x~y', "it's", 'toString', 'constructor', '0', 'ünï'];
const PATTERNS = ['^a', 'b$', '^\\d+$', 'a"b', '\\\\', '^.{2}$', '[😀]', '^[a-z]*$'];
const TYPES = ['string', 'number', 'integer', 'boolean', 'null', 'object', 'array'] as const;
const DIALECTS = [
  undefined,
  'https://json-schema.org/draft/2020-12/schema',
  'https://json-schema.org/draft/2019-09/schema',
  'http://json-schema.org/draft-07/schema#',
];

const jsonValue = fc.oneof(
  { depthSize: 'small' },
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom('', 'a', 'ab', 'abc', '😀', '😀😀', 'aa"b', '12', '\\', 'b'),
  fc.constantFrom(0, 1, -1, 1.5, 2, 3, 1e300, -0),
);

const limits = {
  minimum: fc.integer({ min: -3, max: 3 }),
  maximum: fc.oneof(fc.integer({ min: -3, max: 3 }), fc.constant(2.5)),
  exclusiveMinimum: fc.integer({ min: -3, max: 3 }),
  exclusiveMaximum: fc.integer({ min: -3, max: 3 }),
  minLength: fc.nat(3),
  maxLength: fc.nat(3),
  minItems: fc.nat(3),
  maxItems: fc.nat(3),
  pattern: fc.constantFrom(...PATTERNS),
  enum: fc.array(jsonValue, { minLength: 1, maxLength: 3 }),
  const: jsonValue,
  description: fc.string(),
  title: fc.string(),
  'x-extra': fc.jsonValue({ maxDepth: 1 }),
};

const typeKeyword = fc.oneof(
  fc.constantFrom(...TYPES),
  fc.uniqueArray(fc.constantFrom(...TYPES), { minLength: 1, maxLength: 3 }),
);

/** Schemas nested at most `depth` levels below this one. */
function schemaAt(depth: number): fc.Arbitrary<Record<string, unknown>> {
  const nested =
    depth === 0
      ? {}
      : {
          properties: fc.dictionary(fc.constantFrom(...NAMES), schemaAt(depth - 1), { maxKeys: 3 }),
          additionalProperties: fc.oneof(fc.boolean(), schemaAt(depth - 1)),
          items: schemaAt(depth - 1),
        };
  return fc
    .record(
      {
        type: typeKeyword,
        ...limits,
        required: fc.uniqueArray(fc.constantFrom(...NAMES), { maxLength: 3 }),
        ...nested,
      },
      { requiredKeys: [] },
    )
    .map((schema) => schema as Record<string, unknown>);
}
const schemaArb = schemaAt(2);

function valueFor(): fc.Arbitrary<unknown> {
  const leaf = jsonValue;
  return fc.oneof(
    leaf,
    fc.dictionary(fc.constantFrom(...NAMES, 'extra'), fc.oneof(leaf, fc.array(leaf, { maxLength: 3 })), {
      maxKeys: 4,
    }),
    fc.array(fc.oneof(leaf, fc.dictionary(fc.constantFrom(...NAMES), leaf, { maxKeys: 2 })), {
      maxLength: 4,
    }),
  );
}

describe('the built-in JSON Schema checker matches ajv', () => {
  test('same verdict and message on generated schemas, values and dialects', () => {
    let accepted = 0;
    fc.assert(
      fc.property(
        schemaArb,
        fc.constantFrom(...DIALECTS),
        fc.array(valueFor(), { minLength: 1, maxLength: 5 }),
        (body, dialect, values) => {
          const schema = dialect ? { $schema: dialect, ...body } : body;
          const simple = compileSimpleJsonSchema(schema);
          if (!simple) return;
          accepted++;
          const ajv = compileJsonSchema(schema, 'test');
          for (const value of values) {
            let expected;
            try {
              expected = ajv(value);
            } catch {
              // ajv's deep-equal throws on objects with a non-function `toString`/`valueOf` key
              // (enum/const of objects); the built-in checker answers those, nothing to compare.
              continue;
            }
            expect(simple(value)).toEqual(expected);
          }
        },
      ),
      // SJS_RUNS=3000 runs a longer, unseeded search.
      { numRuns: Number(process.env.SJS_RUNS ?? 400), seed: process.env.SJS_RUNS ? undefined : 20261125 },
    );
    // The generator mostly stays inside the subset; a vacuous run would prove nothing.
    expect(accepted).toBeGreaterThan(250);
  });

  test('the bench tool schemas and typical tool schemas stay inside the subset', () => {
    const echo = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] };
    expect(compileSimpleJsonSchema(echo)?.({ text: 'hi' })).toEqual({ ok: true });
    expect(compileSimpleJsonSchema(echo)?.({ text: 1 })).toEqual({
      ok: false,
      message: '/text must be string',
    });
    expect(compileSimpleJsonSchema(echo)?.({})).toEqual({
      ok: false,
      message: "(root) must have required property 'text'",
    });
    const typical = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      description: 'Search',
      properties: {
        query: { type: 'string', minLength: 1, description: 'What to look for' },
        limit: { type: 'integer', minimum: 1, maximum: 100, default: 10 },
        sort: { enum: ['asc', 'desc'] },
        tags: { type: 'array', items: { type: 'string' }, maxItems: 5 },
      },
      required: ['query'],
      additionalProperties: false,
    };
    expect(compileSimpleJsonSchema(typical)).toBeDefined();
  });

  test('schemas outside the subset are left to ajv', () => {
    for (const schema of [
      { type: 'string', format: 'email' },
      { $ref: '#/$defs/x', $defs: { x: { type: 'string' } } },
      { anyOf: [{ type: 'string' }, { type: 'number' }] },
      { type: 'array', prefixItems: [{ type: 'string' }] },
      { type: 'object', properties: { a: true } },
      { type: 'object', patternProperties: { '^x': { type: 'string' } } },
      { type: 'number', multipleOf: 2 },
      JSON.parse('{ "type": "object", "properties": { "__proto__": { "type": "string" } } }'),
      { enum: ['a', 'a'] },
      { type: 'string', pattern: '(' },
      { enum: [] },
    ]) {
      expect(compileSimpleJsonSchema(schema as never)).toBeUndefined();
    }
  });

  test('a keyword value ajv rejects is rejected at registration too', () => {
    for (const schema of [
      { type: 'strin' },
      { type: 12 },
      { type: [] },
      { type: ['string', 'string'] },
      { type: 'string', minLength: -1 },
      { type: 'array', maxItems: 1.5 },
      { type: 'number', minimum: '1' },
      { type: 'object', required: ['a', 'a'] },
      { type: 'object', required: [1] },
    ]) {
      expect(() => compileSimpleJsonSchema(schema as never)).toThrow(InvalidSchemaError);
      expect(() => compileJsonSchema(schema as never, 'test')).toThrow(/not a valid JSON Schema/);
      expect(() => compileSchema(schema as never, 'input', 'tool "t" input')).toThrow(
        /The tool "t" input schema is not a valid JSON Schema/,
      );
    }
  });
});

describe('raw schemas that need ajv', () => {
  test('are compiled by ajv (loaded on demand) and validate the same', async () => {
    const compiled = compileSchema({ type: 'string', format: 'email' }, 'input', 'test');
    expect(await compiled.validate('a@example.com')).toEqual({ ok: true, value: 'a@example.com' });
    expect(await compiled.validate('nope')).toEqual({
      ok: false,
      message: '(root) must match format "email"',
    });
  });

  test('an invalid one fails loudly: at registration once ajv is loaded, else on use', async () => {
    // Whether ajv is already loaded depends on what ran before in this worker: both paths end the same.
    const attempt = async (): Promise<unknown> => {
      const compiled = compileSchema(
        { type: 'string', format: 'email', minLength: 'x' } as never,
        'input',
        'x',
      );
      return compiled.validate('a');
    };
    await expect(attempt()).rejects.toThrow(/The x schema is not a valid JSON Schema/);
    await expect(attempt()).rejects.toThrow(/The x schema is not a valid JSON Schema/);
  });
});
