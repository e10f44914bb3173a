/**
 * Form-mode elicitation schemas: a Standard Schema or a raw JSON Schema object becomes the
 * `requestedSchema` to send (flat object of primitive properties) plus a validator for the answer.
 * Compiled once per schema object.
 */
import { compileSchema, type CompiledSchema, type SchemaInput } from '../core/schema/compile-schema.js';
import type { JsonSchema } from '../core/schema/to-json-schema.js';
import type { ElicitRequestedSchema } from '../core/types/elicitation.js';

/** A schema ready for `elicitation/create`. */
export interface ElicitSchema {
  readonly requestedSchema: ElicitRequestedSchema;
  readonly compiled: CompiledSchema;
}

const cache = new WeakMap<object, ElicitSchema>();
const PRIMITIVES = new Set(['string', 'number', 'integer', 'boolean', 'array']);

function checkFlat(schema: JsonSchema): void {
  if (schema.type !== 'object' || typeof schema.properties !== 'object' || schema.properties === null) {
    throw new Error('An elicitation schema must be an object schema with properties');
  }
  for (const [name, property] of Object.entries(schema.properties as Record<string, JsonSchema>)) {
    const type = property?.type;
    const titledEnum = type === undefined && Array.isArray(property?.oneOf);
    if (!titledEnum && !(typeof type === 'string' && PRIMITIVES.has(type))) {
      throw new Error(
        `Elicitation schemas take flat primitive properties (string, number, integer, boolean, enum arrays); "${name}" is not one`,
      );
    }
  }
}

/**
 * Prepare `schema` for form-mode elicitation. Throws a clear `Error` for a schema that is not a
 * flat object of primitives or cannot be converted.
 *
 * @example
 * prepareElicitSchema(z.object({ name: z.string().default('Ada') })).requestedSchema;
 * // { $schema: '...2020-12...', type: 'object', properties: { name: { type: 'string', default: 'Ada' } } }
 */
export function prepareElicitSchema(schema: SchemaInput): ElicitSchema {
  const cached = cache.get(schema);
  if (cached) return cached;
  const compiled = compileSchema(schema, 'input', 'elicitation');
  checkFlat(compiled.jsonSchema);
  let requestedSchema: ElicitRequestedSchema;
  if (compiled.raw) {
    requestedSchema = compiled.jsonSchema as ElicitRequestedSchema;
  } else {
    // Libraries add keywords (`additionalProperties`, ...) the elicitation schema does not allow.
    const { $schema, properties, required } = compiled.jsonSchema;
    requestedSchema = { type: 'object', properties: properties as ElicitRequestedSchema['properties'] };
    if (typeof $schema === 'string') requestedSchema = { $schema, ...requestedSchema };
    if (Array.isArray(required) && required.length > 0) requestedSchema.required = required as string[];
  }
  const prepared = { requestedSchema, compiled };
  cache.set(schema, prepared);
  return prepared;
}
