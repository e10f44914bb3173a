/**
 * Raw JSON Schema validation for the whole SDK (tool input and output schemas, elicitation, the
 * client's check of tool results), on `@cfworker/json-schema`: no dependencies, a small import,
 * and no code generation, so it also runs where `new Function` is forbidden (Cloudflare Workers).
 *
 * The dialect follows `$schema` (2020-12 when absent, as MCP prescribes); draft-07 and 2019-09 are
 * accepted for schemas written for older tools.
 */
import { Validator, type OutputUnit, type SchemaDraft } from '@cfworker/json-schema';
import { isSimpleSchema, surelyValid } from './simple-schema.js';
import type { JsonSchema } from './to-json-schema.js';

const DIALECTS: Record<string, SchemaDraft> = {
  'https://json-schema.org/draft/2020-12/schema': '2020-12',
  'https://json-schema.org/draft/2019-09/schema': '2019-09',
  'http://json-schema.org/draft-07/schema': '7',
};

/**
 * The draft a schema is written in, from its `$schema` (2020-12 when absent); undefined if Keel
 * does not accept it.
 *
 * @example
 * schemaDialect({ $schema: 'http://json-schema.org/draft-07/schema#' }); // '7'
 */
export function schemaDialect(schema: JsonSchema): SchemaDraft | undefined {
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

/** Result of a JSON Schema check: ok, or the problems as one readable line. */
export type JsonValidation = { ok: true } | { ok: false; message: string; issues: string[] };

/** A compiled JSON Schema check. Throws only when the schema itself cannot be applied. */
export type JsonValidator = (value: unknown) => JsonValidation;

/** Options of {@link compileJsonSchema}. */
export interface JsonSchemaOptions {
  /** Check a schema of an unknown `$schema` dialect as 2020-12 instead of throwing (peers' schemas). */
  readonly anyDialect?: boolean;
}

const VALID: JsonValidation = Object.freeze({ ok: true });

// Errors that only say "a nested check failed"; the nested errors that follow say what and where.
const WRAPPERS = new Set([
  'properties',
  'patternProperties',
  'items',
  'prefixItems',
  'additionalItems',
  'unevaluatedItems',
  'allOf',
  '$ref',
  '$recursiveRef',
  'dependentSchemas',
  'dependencies',
  'then',
  'else',
]);
// These name the offending property; the `false` schema error that follows them says less.
const NAMES_PROPERTY = new Set(['additionalProperties', 'unevaluatedProperties']);

/** `#/a/b` (URI-encoded JSON Pointer) → `/a/b`; the root is `/`. */
function location(pointer: string): string {
  const path = pointer.replace(/^#/, '');
  try {
    return decodeURIComponent(path) || '/';
  } catch {
    return path || '/';
  }
}

/** The library's error list as `/path: message` lines, without the pass-through wrappers. */
function describe(errors: readonly OutputUnit[]): string[] {
  const lines = new Set<string>();
  errors.forEach((unit, index) => {
    if (WRAPPERS.has(unit.keyword)) return;
    let text = unit.error;
    if (unit.keyword === 'false') {
      const previous = errors[index - 1];
      if (previous && NAMES_PROPERTY.has(previous.keyword)) return;
      text = 'Not allowed by the schema.';
    }
    lines.add(`${location(unit.instanceLocation)}: ${text}`);
  });
  if (lines.size === 0 && errors[0]) lines.add(`${location(errors[0].instanceLocation)}: ${errors[0].error}`);
  return [...lines];
}

// First line only: the library appends every known schema URI to an unresolved `$ref` message.
const reasonOf = (error: unknown): string =>
  (error instanceof Error ? error.message : String(error)).split('\n')[0]!;

/**
 * Compile `schema` once (cheap: no code generation). Throws a clear `Error` naming `what` for an
 * unsupported dialect, or a schema the library rejects (not JSON, duplicate `$id`, bad URI).
 * The schema object is left untouched: the library works on a JSON copy of it.
 *
 * @example
 * const check = compileJsonSchema({ type: 'object', required: ['city'] }, 'tool "forecast" input');
 * check({}); // { ok: false, message: '/: Instance does not have required property "city".', issues: [...] }
 */
export function compileJsonSchema(
  schema: JsonSchema,
  what: string,
  options: JsonSchemaOptions = {},
): JsonValidator {
  const draft = schemaDialect(schema) ?? (options.anyDialect ? '2020-12' : undefined);
  if (!draft) throw unsupportedDialect(schema, what);
  let copy: JsonSchema;
  let validator: Validator | undefined;
  try {
    // A copy, because the library tags the schema objects it is given with hidden properties; and
    // a JSON one, because that is the schema peers see.
    copy = JSON.parse(JSON.stringify(schema)) as JsonSchema;
    // A simple schema (see simple-schema.ts) cannot make the library throw here (no `$id`, no
    // `$ref`), so its validator is built when a value first needs it: most never do.
    if (draft !== '2020-12' || !isSimpleSchema(copy)) validator = new Validator(copy, draft, false);
  } catch (error) {
    throw new Error(`The ${what} schema is not a valid JSON Schema: ${reasonOf(error)}`, { cause: error });
  }
  const fast = validator === undefined;
  const library = (): Validator => (validator ??= new Validator(copy, draft, false));
  const run = (value: unknown): ReturnType<Validator['validate']> => {
    try {
      return library().validate(value);
    } catch (first) {
      // The library refuses values JSON cannot carry (an `undefined` property, a function): judge
      // what the peer will receive. Anything else is the schema failing (unresolved `$ref`, bad
      // `pattern`), a bug of its author, never the caller's.
      let wire: unknown;
      try {
        wire = JSON.parse(JSON.stringify(value) ?? 'null');
      } catch {
        throw new Error(`Cannot check a value against the ${what} schema: ${reasonOf(first)}`, {
          cause: first,
        });
      }
      try {
        return library().validate(wire);
      } catch (error) {
        throw new Error(`Cannot check a value against the ${what} schema: ${reasonOf(error)}`, {
          cause: error,
        });
      }
    }
  };
  return (value) => {
    // Success is the common case: a simple schema accepts it without the library's output units.
    if (fast && surelyValid(copy, value)) return VALID;
    const result = run(value);
    if (result.valid) return VALID;
    const issues = describe(result.errors);
    return { ok: false, message: issues.join('; '), issues };
  };
}
