/**
 * JSON Schema validation with ajv, one instance per dialect, compiled once per schema.
 *
 * The dialect follows `$schema` (2020-12 when absent, as MCP prescribes); draft-07 and 2019-09 are
 * accepted for schemas written for older tools; anything else is rejected at compile time.
 */
import Ajv2020Module from 'ajv/dist/2020.js';
import Ajv2019Module from 'ajv/dist/2019.js';
import AjvDraft7Module from 'ajv';
import addFormatsModule from 'ajv-formats';
import { schemaDialect, unsupportedDialect } from './compile-schema.js';
import type { JsonSchema } from './to-json-schema.js';

type AjvInstance = InstanceType<typeof AjvDraft7Module.default>;
type AjvConstructor = new (options: Record<string, unknown>) => AjvInstance;

// The packages are CommonJS: under Node's ESM loader the constructor is on `.default`, under a
// bundler it may be the module itself.
const pick = <T>(module: { default?: T } | T): T => (module as { default?: T }).default ?? (module as T);
const constructors: Record<string, () => AjvConstructor> = {
  '2020-12': () => pick(Ajv2020Module),
  '2019-09': () => pick(Ajv2019Module),
  'draft-07': () => pick(AjvDraft7Module),
};
const instances = new Map<string, AjvInstance>();

function ajvFor(dialect: string): AjvInstance {
  let ajv = instances.get(dialect);
  if (!ajv) {
    const Ajv = constructors[dialect]!();
    // strict: false — MCP schemas legitimately carry extension keywords (`x-mcp-header`, titles on
    // enum options). addUsedSchema: false — two tools may reuse the same `$id` without clashing.
    ajv = new Ajv({ strict: false, allErrors: true, addUsedSchema: false, validateFormats: true });
    pick(addFormatsModule)(ajv);
    instances.set(dialect, ajv);
  }
  return ajv;
}

/** Result of a JSON Schema check: ok, or the problems as one readable line. */
export type JsonValidation = { ok: true } | { ok: false; message: string };

/** A compiled JSON Schema check. */
export type JsonValidator = (value: unknown) => JsonValidation;

/**
 * Compile `schema` once. Throws a clear `Error` (naming `what`) for an unsupported dialect or an
 * invalid schema.
 *
 * @example
 * const check = compileJsonSchema({ type: 'object', required: ['city'] }, 'tool "forecast" input');
 * check({}); // { ok: false, message: "(root) must have required property 'city'" }
 */
export function compileJsonSchema(schema: JsonSchema, what: string): JsonValidator {
  const dialect = schemaDialect(schema);
  if (!dialect) throw unsupportedDialect(schema, what);
  let validate: ReturnType<AjvInstance['compile']>;
  try {
    validate = ajvFor(dialect).compile(schema);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`The ${what} schema is not a valid JSON Schema: ${reason}`, { cause: error });
  }
  return (value) => {
    if (validate(value)) return { ok: true };
    const message = (validate.errors ?? [])
      .map((e) => `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}`)
      .join('; ');
    return { ok: false, message: message || 'does not match the schema' };
  };
}
