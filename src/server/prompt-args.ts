/**
 * A prompt's `args` schema becomes its `arguments` list. Prompt arguments are strings on the wire
 * (`prompts/get` carries `{ [name]: string }`), so a property that cannot be a string would make
 * every `prompts/get` fail validation: it is refused here, at registration, as tool schemas are.
 */
import type { CompiledSchema } from '../core/schema/compile-schema.js';
import type { PromptArgument } from '../core/types/prompts.js';

type Json = { [key: string]: unknown };

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A local `#/$defs/X` (or `#/definitions/X`) reference, as zod emits for `.meta({ id })`. */
function resolveRef(ref: string, root: Json): Json | undefined {
  const match = /^#\/(\$defs|definitions)\/([^/]+)$/.exec(ref);
  if (!match) return undefined;
  const defs = root[match[1]!];
  const target = isObject(defs) ? defs[decodeURIComponent(match[2]!)] : undefined;
  return isObject(target) ? target : undefined;
}

/**
 * Whether some string satisfies `schema`'s type constraints (`type`, `const`, `enum`, `anyOf`,
 * `oneOf`, `allOf`, local `$ref`). Only the type is judged, not formats or lengths: the aim is to
 * catch `z.number()` and friends, never to refuse a schema that can work. An unresolvable `$ref`
 * is given the benefit of the doubt.
 */
function acceptsString(schema: unknown, root: Json, depth = 0): boolean {
  if (schema === true || !isObject(schema)) return schema !== false;
  if (depth > 32) return true;
  const next = (sub: unknown) => acceptsString(sub, root, depth + 1);
  if (typeof schema.$ref === 'string') {
    const target = resolveRef(schema.$ref, root);
    if (target !== undefined && !next(target)) return false;
  }
  const { type } = schema;
  if (typeof type === 'string' && type !== 'string') return false;
  if (Array.isArray(type) && !type.includes('string')) return false;
  if ('const' in schema && typeof schema.const !== 'string') return false;
  if (Array.isArray(schema.enum) && !schema.enum.some((v) => typeof v === 'string')) return false;
  if (Array.isArray(schema.anyOf) && !schema.anyOf.some(next)) return false;
  if (Array.isArray(schema.oneOf) && !schema.oneOf.some(next)) return false;
  if (Array.isArray(schema.allOf) && !schema.allOf.every(next)) return false;
  return true;
}

/**
 * The `arguments` of prompt `name` from its compiled `args` schema; throws when the schema is not
 * an object or one of its properties cannot be a string.
 *
 * @example
 * argumentsFromSchema(compileSchema(z.object({ who: z.string() }), 'input', 'p'), 'greet');
 * // [{ name: 'who', required: true }]
 */
export function argumentsFromSchema(schema: CompiledSchema, name: string): PromptArgument[] {
  const json = schema.jsonSchema;
  if (json.type !== 'object')
    throw new Error(`The arguments schema of prompt "${name}" must describe an object`);
  const required = new Set(Array.isArray(json.required) ? (json.required as string[]) : []);
  const properties = (isObject(json.properties) ? json.properties : {}) as Record<string, unknown>;
  return Object.entries(properties).map(([argName, property]) => {
    if (!acceptsString(property, json))
      throw new Error(
        `The arguments schema of prompt "${name}": argument "${argName}" cannot be a string, but ` +
          'prompt arguments are strings on the wire. Use z.string() (or an enum of strings), and ' +
          'convert in the schema if needed, e.g. z.string().transform(Number).',
      );
    const { title, description } = isObject(property) ? property : {};
    const argument: PromptArgument = { name: argName };
    if (typeof title === 'string') argument.title = title;
    if (typeof description === 'string') argument.description = description;
    if (required.has(argName)) argument.required = true;
    return argument;
  });
}
