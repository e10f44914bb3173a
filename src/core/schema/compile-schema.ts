/**
 * One entry point for every user-supplied schema (tool input/output, prompt arguments,
 * elicitation): a Standard Schema or a raw JSON Schema object becomes the JSON Schema to advertise
 * plus a validator. Raw JSON Schema is advertised exactly as given (same object, nothing added or
 * stripped); a Standard Schema is checked by its own library.
 *
 * Raw JSON Schema and ajv: ajv costs ~36 ms to import, more than the rest of a Keel server, so it
 * is loaded only when a schema needs it. A schema inside the common subset (types, properties,
 * required, enum, bounds, pattern, ...; see simple-json-schema.ts) is checked by a small built-in
 * checker that gives ajv's exact verdicts and messages: compiled at registration, invalid keyword
 * values throw there. Any other schema is compiled by ajv: synchronously at registration once ajv
 * is loaded; before that, ajv is loaded in the background at registration and the schema is
 * compiled as soon as it arrives. The trade-off: for such a schema (before ajv is loaded) an
 * invalid schema is reported on first use — the call fails with that error — instead of at
 * registration, and the first call may wait for ajv.
 */
import type { JsonValidation, JsonValidator } from './json-validator.js';
import { compileSimpleJsonSchema, InvalidSchemaError } from './simple-json-schema.js';
import { formatIssues, isStandardSchema, type StandardSchema } from './standard-schema.js';
import { standardToJsonSchema, type JsonSchema, type SchemaSide } from './to-json-schema.js';

const DIALECTS: Record<string, string> = {
  'https://json-schema.org/draft/2020-12/schema': '2020-12',
  'https://json-schema.org/draft/2019-09/schema': '2019-09',
  'http://json-schema.org/draft-07/schema': 'draft-07',
};

/**
 * The dialect of a schema, from its `$schema` (2020-12 when absent, as MCP prescribes); undefined
 * if unsupported.
 *
 * @example
 * schemaDialect({ $schema: 'http://json-schema.org/draft-07/schema#' }); // 'draft-07'
 */
export function schemaDialect(schema: JsonSchema): string | undefined {
  const uri = schema.$schema;
  if (uri === undefined) return '2020-12';
  if (typeof uri !== 'string') return undefined;
  return DIALECTS[uri.replace(/#$/, '')];
}

/**
 * The error for a schema whose `$schema` names a dialect Keel does not support.
 *
 * @example
 * throw unsupportedDialect({ $schema: 'http://json-schema.org/draft-04/schema#' }, 'tool "x" input');
 */
export function unsupportedDialect(schema: JsonSchema, what: string): Error {
  return new Error(`The ${what} schema uses an unsupported JSON Schema dialect: ${String(schema.$schema)}`);
}

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
 * converted, or a raw schema is invalid or of an unsupported dialect.
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
  const raw = schema as JsonSchema;
  if (!schemaDialect(raw)) throw unsupportedDialect(raw, what);
  let check: JsonValidator | undefined;
  try {
    check = compileSimpleJsonSchema(raw);
  } catch (error) {
    if (!(error instanceof InvalidSchemaError)) throw error;
    throw new Error(`The ${what} schema is not a valid JSON Schema: ${error.message}`, { cause: error });
  }
  if (!check && ajvModule) check = ajvModule.compileJsonSchema(raw, what);
  if (check) {
    const compiled = check;
    return { jsonSchema: raw, raw: true, validate: (value) => verdict<T>(compiled(value), value) };
  }
  // ajv is not loaded yet: load it now, compile when it is there; the first calls wait for it.
  let later: JsonValidator | undefined;
  const ready = loadAjv().then((module) => (later = module.compileJsonSchema(raw, what)));
  // A schema ajv rejects fails each call that uses it (with ajv's reason), never the process.
  ready.catch(() => undefined);
  return {
    jsonSchema: raw,
    raw: true,
    validate: (value) =>
      later ? verdict<T>(later(value), value) : ready.then((compiled) => verdict<T>(compiled(value), value)),
  };
}

type AjvModule = typeof import('./json-validator.js');
let ajvModule: AjvModule | undefined;
let ajvLoading: Promise<AjvModule> | undefined;

function loadAjv(): Promise<AjvModule> {
  return (ajvLoading ??= import('./json-validator.js').then((module) => (ajvModule = module)));
}

function verdict<T>(result: JsonValidation, value: unknown): Validation<T> {
  return result.ok ? { ok: true, value: value as T } : result;
}

function toValidation<T>(
  result: { value: unknown; issues?: undefined } | { issues: ReadonlyArray<{ message: string }> },
): Validation<T> {
  if (result.issues) return { ok: false, message: formatIssues(result.issues) };
  return { ok: true, value: (result as { value: T }).value };
}
