/**
 * One entry point for every user-supplied schema (tool input/output, prompt arguments,
 * elicitation): a Standard Schema or a raw JSON Schema object becomes the JSON Schema to advertise
 * plus a validator. Raw JSON Schema is advertised exactly as given (same object, nothing added or
 * stripped) and checked by {@link compileJsonSchema}, prepared at registration, synchronous; a
 * Standard Schema is checked by its own library.
 */
import { assertValidJsonSchema } from './check-json-schema.js';
import { compileJsonSchema } from './json-validator.js';
import { formatIssues, isStandardSchema, type StandardSchema } from './standard-schema.js';
import { standardToJsonSchema, type JsonSchema, type SchemaSide } from './to-json-schema.js';

/**
 * What users may pass wherever Keel takes a schema.
 *
 * @example
 * const fromZod: SchemaInput = z.object({ city: z.string() });
 * const raw: SchemaInput = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
 */
export type SchemaInput = StandardSchema<any, any> | JsonSchema;

/** Outcome of validating a value. `value` is the library's output (defaults applied, transforms run). */
export type Validation<T> = { ok: true; value: T } | { ok: false; message: string };

/**
 * A schema ready to use: the JSON Schema to send, and a validator.
 *
 * @example
 * const compiled = compileSchema(z.object({ city: z.string() }), 'input', 'tool "forecast" input');
 * compiled.jsonSchema; // what tools/list shows
 * await compiled.validate({ city: 'Oslo' }); // { ok: true, value: { city: 'Oslo' } }
 */
export interface CompiledSchema<T = unknown> {
  readonly jsonSchema: JsonSchema;
  /** True when `jsonSchema` is the user's own raw JSON Schema object. */
  readonly raw: boolean;
  validate(value: unknown): Validation<T> | Promise<Validation<T>>;
}

/**
 * Compile a schema for `side`. Throws (with `what` in the message) when a Standard Schema cannot be
 * converted, or a raw schema breaks the JSON Schema 2020-12 meta-schema, is otherwise invalid, or
 * is of an unsupported dialect.
 *
 * @example
 * compileSchema({ type: 'object', properties: { n: { type: 'number' } } }, 'input', 'tool "add" input');
 */
export function compileSchema<T = unknown>(
  schema: SchemaInput,
  side: SchemaSide,
  what: string,
): CompiledSchema<T> {
  if (isStandardSchema(schema)) {
    const jsonSchema = standardToJsonSchema(schema, side, what);
    const props = schema['~standard'];
    return {
      jsonSchema,
      raw: false,
      validate(value) {
        const result = props.validate(value);
        return result instanceof Promise ? result.then(toValidation<T>) : toValidation<T>(result);
      },
    };
  }
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    throw new Error(`The ${what} schema must be a Standard Schema or a JSON Schema object`);
  }
  // Checked against the meta-schema once, here, so a broken schema fails at registration rather
  // than on every call; the per-call path below is untouched.
  assertValidJsonSchema(schema as JsonSchema, what);
  const check = compileJsonSchema(schema as JsonSchema, what);
  return {
    jsonSchema: schema as JsonSchema,
    raw: true,
    validate: (value) => {
      const result = check(value);
      return result.ok ? { ok: true, value: value as T } : { ok: false, message: result.message };
    },
  };
}

function toValidation<T>(
  result: { value: unknown; issues?: undefined } | { issues: ReadonlyArray<{ message: string }> },
): Validation<T> {
  if (result.issues) return { ok: false, message: formatIssues(result.issues) };
  return { ok: true, value: (result as { value: T }).value };
}
