/**
 * A cheap path for the schemas most tools declare: objects of primitive properties, written with
 * `type`, `properties`, `required`, `additionalProperties`, `items`, `enum` (of primitives), the
 * numeric bounds, the length and item-count bounds, `title` and `description` only. Such a schema
 * is valid against the 2020-12 meta-schema by construction, so the registration-time meta-schema
 * check can be skipped (what it would find is already known: nothing), and a value that satisfies
 * it can be accepted without running `@cfworker/json-schema` (whose output units and error strings
 * are then never built). Anything this module is not sure about goes to the library, which stays the only
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

const isPrimitive = (value: unknown): boolean =>
  value === null || typeof value === 'string' || typeof value === 'boolean' || Number.isFinite(value);

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
      case 'enum':
        if (!Array.isArray(value) || !value.every(isPrimitive)) return false;
        break;
      case 'minimum':
      case 'maximum':
      case 'exclusiveMinimum':
      case 'exclusiveMaximum':
        // Finite: JSON would turn ±Infinity into null, and the library judges the JSON copy.
        if (!Number.isFinite(value)) return false;
        break;
      case 'minLength':
      case 'maxLength':
      case 'minItems':
      case 'maxItems':
        if (!Number.isInteger(value) || (value as number) < 0) return false;
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
 * isSimpleSchema({ type: 'string', pattern: '^[a-z]+$' }); // false: the library decides
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
  const choices = schema.enum as unknown[] | undefined;
  // Only primitives are compared here (by ===, as the library does); objects go to the library.
  if (choices !== undefined && (actual === 'object' || actual === 'array' || !choices.includes(value))) {
    return false;
  }
  switch (actual) {
    case 'object':
      return objectValid(schema, value as Record<string, unknown>);
    case 'array':
      return arrayValid(schema, value as unknown[]);
    case 'number':
      return numberValid(schema, value as number);
    case 'string':
      return stringValid(schema, value as string);
    default:
      return true;
  }
}

// The comparisons below are the library's own (2020-12), negated: NaN passes them as it does there.
function numberValid(schema: JsonSchema, value: number): boolean {
  const { minimum, maximum, exclusiveMinimum, exclusiveMaximum } = schema as Record<
    string,
    number | undefined
  >;
  if (minimum !== undefined && value < minimum) return false;
  if (maximum !== undefined && value > maximum) return false;
  if (exclusiveMinimum !== undefined && value <= exclusiveMinimum) return false;
  return !(exclusiveMaximum !== undefined && value >= exclusiveMaximum);
}

function stringValid(schema: JsonSchema, value: string): boolean {
  const { minLength, maxLength } = schema as Record<string, number | undefined>;
  if (minLength === undefined && maxLength === undefined) return true;
  const length = codePoints(value);
  return !(
    (minLength !== undefined && length < minLength) ||
    (maxLength !== undefined && length > maxLength)
  );
}

/** Length in code points, a lone surrogate counting one: the library's `ucs2length`. */
function codePoints(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    count++;
    const code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      if ((text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) i++;
    }
  }
  return count;
}

function arrayValid(schema: JsonSchema, value: unknown[]): boolean {
  const { minItems, maxItems } = schema as Record<string, number | undefined>;
  if (minItems !== undefined && value.length < minItems) return false;
  if (maxItems !== undefined && value.length > maxItems) return false;
  const items = schema.items as JsonSchema | boolean | undefined;
  if (items === undefined) return true;
  // An index loop, not `every`: a hole is visited (as `undefined`) by the library, which refuses it.
  for (let i = 0; i < value.length; i++) if (!surelyValid(items, value[i])) return false;
  return true;
}

function objectValid(schema: JsonSchema, value: Record<string, unknown>): boolean {
  // Index and for…in loops, not `every`/`Object.keys`: no closure or key array per call.
  const required = schema.required as string[] | undefined;
  if (required !== undefined) {
    for (let i = 0; i < required.length; i++) if (!hasOwn(value, required[i]!)) return false;
  }
  const properties = schema.properties as Record<string, JsonSchema | boolean> | undefined;
  if (properties !== undefined) {
    for (const key in properties) {
      if (!hasOwn(properties, key)) continue;
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
