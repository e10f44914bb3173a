/**
 * A cheap path for the schemas most tools declare: objects of primitive properties, written with
 * `type`, `properties`, `required`, `additionalProperties`, `items`, `title` and `description`
 * only. Such a schema is valid against the 2020-12 meta-schema by construction, so the
 * registration-time meta-schema check can be skipped, and a value that satisfies it can be
 * accepted without running `@cfworker/json-schema` (whose output units and error strings are then
 * never built). Anything this module is not sure about goes to the library, which stays the only
 * source of verdicts on invalid values and of every error message.
 */
import type { JsonSchema } from './to-json-schema.js';

const SIMPLE_TYPES = new Set(['array', 'boolean', 'integer', 'null', 'number', 'object', 'string']);
const DIALECT_2020_12 = 'https://json-schema.org/draft/2020-12/schema';
// Deeper schemas are rare in tool inputs; the bound also stops a cyclic object cheaply.
const MAX_DEPTH = 16;

const isPlainObject = (value: unknown): value is Record<string, unknown> => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
};

const isUniqueStringArray = (value: unknown): boolean =>
  Array.isArray(value) &&
  value.every((item) => typeof item === 'string') &&
  new Set(value).size === value.length;

function isSimpleType(value: unknown): boolean {
  if (typeof value === 'string') return SIMPLE_TYPES.has(value);
  return (
    Array.isArray(value) &&
    value.length > 0 &&
    isUniqueStringArray(value) &&
    value.every((item) => SIMPLE_TYPES.has(item as string))
  );
}

function isSimpleNode(node: unknown, depth: number, root: boolean): boolean {
  if (typeof node === 'boolean') return true;
  if (depth > MAX_DEPTH || !isPlainObject(node)) return false;
  for (const key of Object.keys(node)) {
    const value = node[key];
    switch (key) {
      case 'type':
        if (!isSimpleType(value)) return false;
        break;
      case 'properties':
        if (!isPlainObject(value)) return false;
        for (const name of Object.keys(value)) {
          if (!isSimpleNode(value[name], depth + 1, false)) return false;
        }
        break;
      case 'required':
        if (!isUniqueStringArray(value)) return false;
        break;
      case 'additionalProperties':
      case 'items':
        if (!isSimpleNode(value, depth + 1, false)) return false;
        break;
      case 'title':
      case 'description':
        if (typeof value !== 'string') return false;
        break;
      case '$schema':
        if (!root || (value !== DIALECT_2020_12 && value !== `${DIALECT_2020_12}#`)) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

/**
 * True when `schema` uses only the keywords above, with values the 2020-12 meta-schema accepts, in
 * plain objects and arrays (so its JSON copy is itself): then it is a valid 2020-12 schema, and
 * {@link surelyValid} can judge values against it.
 *
 * @example
 * isSimpleSchema({ type: 'object', properties: { text: { type: 'string' } }, required: ['text'] }); // true
 * isSimpleSchema({ type: 'string', minLength: 1 }); // false: the library decides
 */
export function isSimpleSchema(schema: JsonSchema): boolean {
  return isSimpleNode(schema, 0, true);
}

/** The library's notion of an instance's type; undefined for what it refuses (it throws). */
function instanceTypeOf(value: unknown): string | undefined {
  switch (typeof value) {
    case 'boolean':
    case 'number':
    case 'string':
      return typeof value;
    case 'object':
      return value === null ? 'null' : Array.isArray(value) ? 'array' : 'object';
    default:
      return undefined;
  }
}

function typeMatches(expected: string, actual: string, value: unknown): boolean {
  // `integer` as the library judges it: a number without fraction, NaN and ±Infinity excluded.
  if (expected === 'integer') return actual === 'number' && Number.isInteger(value);
  return expected === actual;
}

const hasOwn = (object: object, key: string): boolean => Object.prototype.hasOwnProperty.call(object, key);

/**
 * True only when `@cfworker/json-schema` would find `value` valid against `schema` (a schema for
 * which {@link isSimpleSchema} holds), by the library's own rules: its type names, own-property
 * `required`, `additionalProperties` over `for...in` keys. False means "ask the library", never
 * "invalid": values the library refuses (`undefined`, functions) and every failure go there.
 *
 * @example
 * const schema = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] };
 * surelyValid(schema, { text: 'hi' }); // true
 * surelyValid(schema, {}); // false: the library builds the error message
 */
export function surelyValid(schema: JsonSchema | boolean, value: unknown): boolean {
  if (schema === true) return true;
  if (schema === false) return false;
  const actual = instanceTypeOf(value);
  if (actual === undefined) return false;
  const type = schema.type as string | string[] | undefined;
  if (type !== undefined) {
    const ok =
      typeof type === 'string'
        ? typeMatches(type, actual, value)
        : type.some((expected) => typeMatches(expected, actual, value));
    if (!ok) return false;
  }
  if (actual === 'object') return objectValid(schema, value as Record<string, unknown>);
  if (actual === 'array' && schema.items !== undefined) {
    const items = schema.items as JsonSchema | boolean;
    const array = value as unknown[];
    // An index loop, not `every`: a hole is visited (as `undefined`) by the library, which refuses it.
    for (let i = 0; i < array.length; i++) if (!surelyValid(items, array[i])) return false;
  }
  return true;
}

function objectValid(schema: JsonSchema, value: Record<string, unknown>): boolean {
  const required = schema.required as string[] | undefined;
  if (required !== undefined && !required.every((key) => hasOwn(value, key))) return false;
  const properties = schema.properties as Record<string, JsonSchema | boolean> | undefined;
  if (properties !== undefined) {
    for (const key of Object.keys(properties)) {
      if (hasOwn(value, key) && !surelyValid(properties[key]!, value[key])) return false;
    }
  }
  const additional = schema.additionalProperties as JsonSchema | boolean | undefined;
  if (additional === undefined || additional === true) return true;
  for (const key in value) {
    if (properties !== undefined && hasOwn(properties, key) && hasOwn(value, key)) continue;
    if (!surelyValid(additional, value[key])) return false;
  }
  return true;
}
