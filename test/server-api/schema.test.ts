import { toJsonSchema } from '@valibot/to-json-schema';
import * as v from 'valibot';
import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { registerJsonSchemaConverter } from 'keel-mcp/server';
import { compileJsonSchema, compileSchema, schemaDialect } from '../../src/core/schema/index.js';

describe('raw JSON Schema validation (@cfworker/json-schema)', () => {
  test('the dialect follows $schema, 2020-12 by default', () => {
    expect(schemaDialect({})).toBe('2020-12');
    expect(schemaDialect({ $schema: 'https://json-schema.org/draft/2020-12/schema' })).toBe('2020-12');
    expect(schemaDialect({ $schema: 'http://json-schema.org/draft-07/schema#' })).toBe('7');
    expect(schemaDialect({ $schema: 'https://json-schema.org/draft/2019-09/schema' })).toBe('2019-09');
    expect(schemaDialect({ $schema: 'http://json-schema.org/draft-04/schema#' })).toBeUndefined();
  });

  test('2020-12 keywords work ($defs, prefixItems); draft-07 schemas work too', () => {
    const tuple = compileJsonSchema(
      { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], items: false },
      'test',
    );
    expect(tuple(['a', 1])).toEqual({ ok: true });
    expect(tuple(['a', 'b'])).toMatchObject({
      ok: false,
      message: '/1: Instance type "string" is invalid. Expected "number".',
    });
    expect(tuple(['a', 1, 2])).toMatchObject({ ok: false, message: '/2: Not allowed by the schema.' });
    const old = compileJsonSchema(
      {
        $schema: 'http://json-schema.org/draft-07/schema#',
        definitions: { n: { type: 'number' } },
        properties: { n: { $ref: '#/definitions/n' } },
      },
      'test',
    );
    expect(old({ n: 'x' })).toEqual({
      ok: false,
      message: '/n: Instance type "string" is invalid. Expected "number".',
      issues: ['/n: Instance type "string" is invalid. Expected "number".'],
    });
  });

  test('messages name every problem with its JSON Pointer, and nothing else', () => {
    const check = compileJsonSchema(
      {
        type: 'object',
        properties: {
          city: { type: 'string' },
          units: { enum: ['C', 'F'] },
          days: { type: 'integer', minimum: 1 },
          'a/b': { enum: ['x', 'y'] },
          tags: { type: 'array', items: { type: 'string' } },
        },
        required: ['city', 'units'],
        additionalProperties: false,
      },
      'test',
    );
    expect(check({ city: 'Oslo', units: 'C', days: 2, 'a/b': 'x', tags: ['t'] })).toEqual({ ok: true });
    const result = check({ city: 3, days: 0, 'a/b': 'z', tags: ['t', 1], extra: true });
    expect(result.ok).toBe(false);
    expect(result.ok ? [] : result.issues).toEqual([
      '/: Instance does not have required property "units".',
      '/city: Instance type "number" is invalid. Expected "string".',
      '/days: 0 is less than 1.',
      '/a~1b: Instance does not match any of ["x","y"].',
      '/tags/1: Instance type "number" is invalid. Expected "string".',
      '/: Property "extra" does not match additional properties schema.',
    ]);
    expect(result.ok ? '' : result.message).toContain(
      '/city: Instance type "number" is invalid. Expected "string".; /days: 0 is less than 1.',
    );
  });

  test('formats are checked; the same $id in two schemas does not clash; the schema is not touched', () => {
    const email = compileJsonSchema({ type: 'string', format: 'email' }, 'test');
    expect(email('a@example.com').ok).toBe(true);
    expect(email('nope')).toMatchObject({ ok: false, message: '/: String does not match format "email".' });
    compileJsonSchema({ $id: 'https://example.com/s', type: 'string' }, 'one');
    expect(() => compileJsonSchema({ $id: 'https://example.com/s', type: 'number' }, 'two')).not.toThrow();
    const schema = { properties: { n: { $ref: '#/$defs/n' } }, $defs: { n: { type: 'number' } } };
    const before = JSON.stringify(schema);
    compileJsonSchema(schema, 'test')({ n: 1 });
    expect(Object.getOwnPropertyNames(schema.properties.n)).toEqual(['$ref']);
    expect(JSON.stringify(schema)).toBe(before);
  });

  test('a property JSON drops (undefined) is judged as the peer will see it', () => {
    const check = compileJsonSchema(
      { type: 'object', properties: { note: { type: 'string' } }, required: ['n'] },
      'test',
    );
    expect(check({ n: 1, note: undefined })).toEqual({ ok: true });
    expect(check({ note: undefined })).toMatchObject({ ok: false });
  });

  test('unsupported dialects and invalid schemas throw clear errors', () => {
    expect(() =>
      compileJsonSchema({ $schema: 'http://json-schema.org/draft-04/schema#' }, 'tool "x" input'),
    ).toThrow('The tool "x" input schema uses an unsupported JSON Schema dialect');
    expect(
      compileJsonSchema({ $schema: 'http://json-schema.org/draft-04/schema#' }, 'output', {
        anyDialect: true,
      }),
    ).toBeTypeOf('function');
    // Two subschemas claiming one URI: the library rejects it when the validator is built.
    expect(() =>
      compileJsonSchema(
        { $defs: { a: { $id: 'https://example.com/a' }, b: { $id: 'https://example.com/a' } } },
        'tool "x" input',
      ),
    ).toThrow(/The tool "x" input schema is not a valid JSON Schema: Duplicate schema URI/);
    const cyclic: Record<string, unknown> = { type: 'object' };
    cyclic.self = cyclic;
    expect(() => compileJsonSchema(cyclic, 'tool "x" input')).toThrow(/not a valid JSON Schema/);
    expect(() => compileSchema([] as never, 'input', 'tool "x" input')).toThrow(
      /Standard Schema or a JSON Schema/,
    );
  });

  test('a schema that fails while checking (unresolved $ref) throws a clear error, not a verdict', () => {
    const check = compileJsonSchema({ properties: { n: { $ref: '#/$defs/missing' } } }, 'tool "x" input');
    expect(check({})).toEqual({ ok: true });
    expect(() => check({ n: 1 })).toThrow(
      /Cannot check a value against the tool "x" input schema: Unresolved \$ref/,
    );
  });
});

describe('Standard Schema conversion', () => {
  test('input and output sides differ where the library says so (zod defaults)', async () => {
    const schema = z.object({ n: z.number().default(1) });
    const input = compileSchema(schema, 'input', 'test');
    const output = compileSchema(schema, 'output', 'test');
    expect(input.jsonSchema.required).toBeUndefined();
    expect(output.jsonSchema.required).toEqual(['n']);
    expect(await input.validate({})).toEqual({ ok: true, value: { n: 1 } });
    expect(await input.validate({ n: 'x' })).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^n: /),
    });
  });

  test('a converter registered for a vendor is used when the schema has no ~standard.jsonSchema', async () => {
    registerJsonSchemaConverter('valibot', (schema) =>
      toJsonSchema(schema as never, { target: 'draft-2020-12', errorMode: 'throw' }),
    );
    const compiled = compileSchema(v.object({ city: v.string() }), 'input', 'test');
    expect(compiled.jsonSchema).toMatchObject({ type: 'object', properties: { city: { type: 'string' } } });
    expect(await compiled.validate({ city: 1 })).toMatchObject({ ok: false });
    expect(() => compileSchema(v.object({ when: v.date() }), 'input', 'tool "t" input')).toThrow(
      /Cannot convert the tool "t" input schema \(valibot\)/,
    );
  });
});
