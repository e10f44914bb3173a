import { toJsonSchema } from '@valibot/to-json-schema';
import * as v from 'valibot';
import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import {
  compileJsonSchema,
  compileSchema,
  registerJsonSchemaConverter,
  schemaDialect,
} from '../../src/core/schema/index.js';

describe('raw JSON Schema validation (ajv)', () => {
  test('the dialect follows $schema, 2020-12 by default', () => {
    expect(schemaDialect({})).toBe('2020-12');
    expect(schemaDialect({ $schema: 'https://json-schema.org/draft/2020-12/schema' })).toBe('2020-12');
    expect(schemaDialect({ $schema: 'http://json-schema.org/draft-07/schema#' })).toBe('draft-07');
    expect(schemaDialect({ $schema: 'https://json-schema.org/draft/2019-09/schema' })).toBe('2019-09');
    expect(schemaDialect({ $schema: 'http://json-schema.org/draft-04/schema#' })).toBeUndefined();
  });

  test('2020-12 keywords work ($defs, prefixItems); draft-07 schemas work too', () => {
    const tuple = compileJsonSchema(
      { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], items: false },
      'test',
    );
    expect(tuple(['a', 1])).toEqual({ ok: true });
    expect(tuple(['a', 'b']).ok).toBe(false);
    expect(tuple(['a', 1, 2]).ok).toBe(false);
    const old = compileJsonSchema(
      {
        $schema: 'http://json-schema.org/draft-07/schema#',
        definitions: { n: { type: 'number' } },
        properties: { n: { $ref: '#/definitions/n' } },
      },
      'test',
    );
    expect(old({ n: 'x' })).toEqual({ ok: false, message: '/n must be number' });
  });

  test('formats are checked; the same $id in two schemas does not clash', () => {
    const email = compileJsonSchema({ type: 'string', format: 'email' }, 'test');
    expect(email('a@example.com').ok).toBe(true);
    expect(email('nope').ok).toBe(false);
    compileJsonSchema({ $id: 'https://example.com/s', type: 'string' }, 'one');
    expect(() => compileJsonSchema({ $id: 'https://example.com/s', type: 'number' }, 'two')).not.toThrow();
  });

  test('unsupported dialects and invalid schemas throw clear errors', () => {
    expect(() =>
      compileJsonSchema({ $schema: 'http://json-schema.org/draft-04/schema#' }, 'tool "x" input'),
    ).toThrow('The tool "x" input schema uses an unsupported JSON Schema dialect');
    expect(() => compileJsonSchema({ type: 12 }, 'tool "x" input')).toThrow(/not a valid JSON Schema/);
    expect(() => compileSchema([] as never, 'input', 'tool "x" input')).toThrow(
      /Standard Schema or a JSON Schema/,
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
