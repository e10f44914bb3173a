/**
 * Standard Schema → JSON Schema (2020-12), through Standard JSON Schema (`~standard.jsonSchema`)
 * or a converter registered for the library. Conversion failures are loud: they throw at
 * registration with the library's reason.
 */
import type { StandardSchema } from './standard-schema.js';

/** A JSON Schema document; kept loose because MCP allows any 2020-12 keyword. */
export type JsonSchema = { [key: string]: unknown };

/** Which side of a schema to describe: what is accepted (`input`) or what is produced (`output`). */
export type SchemaSide = 'input' | 'output';

/**
 * Converts a library's schema to JSON Schema, for libraries whose schemas do not implement
 * Standard JSON Schema themselves.
 *
 * @example
 * import { toJsonSchema } from '@valibot/to-json-schema';
 * registerJsonSchemaConverter('valibot', (schema) => toJsonSchema(schema as never, { target: 'draft-2020-12' }));
 */
export type JsonSchemaConverter = (schema: StandardSchema<unknown, unknown>, side: SchemaSide) => object;

const converters = new Map<string, JsonSchemaConverter>();

/**
 * Teach Keel to convert schemas of `vendor` (the `~standard.vendor` string). Used only when a
 * schema has no `~standard.jsonSchema`.
 *
 * @example
 * registerJsonSchemaConverter('valibot', (s) => toJsonSchema(s as never, { target: 'draft-2020-12', errorMode: 'throw' }));
 */
export function registerJsonSchemaConverter(vendor: string, converter: JsonSchemaConverter): void {
  converters.set(vendor, converter);
}

// arktype's Standard JSON Schema quietly widens what JSON Schema cannot say (a Date becomes `{}`).
// A tool advertised with `{}` for a Date would mislead clients, so those cases throw instead;
// refinements it cannot express (predicates, pattern intersections) stay lenient because the
// library still validates them.
const thrower = (ctx: { code?: string }): never => {
  throw new Error(`arktype cannot express "${ctx.code ?? 'this type'}" in JSON Schema`);
};
const libraryOptions: Record<string, Record<string, unknown>> = {
  arktype: {
    fallback: {
      date: thrower,
      proto: thrower,
      domain: thrower,
      symbolKey: thrower,
      unit: thrower,
      morph: thrower,
    },
  },
};

/**
 * Convert a Standard Schema to a JSON Schema (2020-12) describing `side`. Throws an `Error` that
 * names `what` when the library cannot convert it.
 *
 * @example
 * standardToJsonSchema(z.object({ city: z.string() }), 'input', 'tool "forecast" input');
 * // { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', ... }
 */
export function standardToJsonSchema(
  schema: StandardSchema<unknown, unknown>,
  side: SchemaSide,
  what: string,
): JsonSchema {
  const props = schema['~standard'];
  const vendor = props.vendor;
  try {
    if (props.jsonSchema) {
      return props.jsonSchema[side]({ target: 'draft-2020-12', libraryOptions: libraryOptions[vendor] });
    }
    const converter = converters.get(vendor);
    if (converter) return converter(schema, side) as JsonSchema;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`Cannot convert the ${what} schema (${vendor}) to JSON Schema: ${reason}`, {
      cause: error,
    });
  }
  const hint =
    vendor === 'valibot'
      ? ' Wrap it with toStandardJsonSchema() from @valibot/to-json-schema, or register a converter.'
      : ' Use a library version that implements Standard JSON Schema, or call registerJsonSchemaConverter().';
  throw new Error(`Cannot convert the ${what} schema (${vendor}) to JSON Schema: no converter.${hint}`);
}
