/**
 * `key=value` arguments typed from a tool's (or prompt's) input schema, `key:=<json>` raw JSON, and
 * `--args '<json object>'` for all of them at once.
 */
import { UsageError } from './usage.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const ORDER = ['integer', 'number', 'boolean', 'null', 'array', 'object'] as const;
const INTEGER = /^[-+]?\d+$/;
const NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

/**
 * Parse `key=value` / `key:=json` pairs (and `--args`) into a JSON object, each value typed from
 * `schema.properties[key]`: integer, number, boolean and null from their text, arrays and objects
 * as JSON, strings as is. A value that fits none of the key's types is a {@link UsageError}.
 *
 * @example
 * parseArguments(['n=3', 'tags=["a"]', 'title=hi'], { type: 'object', properties: { n: { type: 'integer' }, tags: { type: 'array' } } });
 * // { n: 3, tags: ['a'], title: 'hi' }
 */
export function parseArguments(pairs: readonly string[], schema: unknown, argsJson?: string): JsonObject {
  const result: JsonObject = argsJson === undefined ? {} : parseArgsOption(argsJson);
  const seen = new Set<string>();
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0 || (eq === 1 && pair[0] === ':')) {
      throw new UsageError(`"${pair}" is not key=value (or key:=<json>)`);
    }
    const raw = pair[eq - 1] === ':';
    const key = pair.slice(0, raw ? eq - 1 : eq);
    const text = pair.slice(eq + 1);
    if (seen.has(key)) throw new UsageError(`${key}: given twice`);
    seen.add(key);
    result[key] = raw ? parseRawJson(key, text) : typeValue(key, text, propertyTypes(schema, key));
  }
  return result;
}

function parseArgsOption(text: string): JsonObject {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--args: not JSON (${(error as Error).message})`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new UsageError('--args: expected a JSON object');
  }
  return value as JsonObject;
}

function parseRawJson(key: string, text: string): Json {
  try {
    return JSON.parse(text) as Json;
  } catch {
    throw new UsageError(`${key}: ${JSON.stringify(text)} is not JSON (key:=<json>)`);
  }
}

/**
 * The JSON Schema types a property accepts: `type` (one or a list), the types of `anyOf`/`oneOf`
 * branches, or those of `enum`/`const` values. Empty when the schema says nothing (then: string).
 *
 * @example
 * propertyTypes({ properties: { n: { type: ['integer', 'null'] } } }, 'n'); // ['integer', 'null']
 */
export function propertyTypes(schema: unknown, key: string): string[] {
  const properties = (schema as { properties?: Record<string, unknown> } | undefined)?.properties;
  const property = properties && Object.hasOwn(properties, key) ? properties[key] : undefined;
  const types = new Set<string>();
  collectTypes(property, types, 0);
  return [...types];
}

function collectTypes(node: unknown, into: Set<string>, depth: number): void {
  if (typeof node !== 'object' || node === null || depth > 4) return;
  const schema = node as Record<string, unknown>;
  if (typeof schema.type === 'string') into.add(schema.type);
  if (Array.isArray(schema.type)) for (const t of schema.type) if (typeof t === 'string') into.add(t);
  for (const list of [schema.anyOf, schema.oneOf]) {
    if (Array.isArray(list)) for (const branch of list) collectTypes(branch, into, depth + 1);
  }
  const values = Array.isArray(schema.enum) ? schema.enum : 'const' in schema ? [schema.const] : [];
  for (const value of values) into.add(jsonType(value));
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function typeValue(key: string, text: string, types: readonly string[]): Json {
  if (types.length === 0) return text;
  // Non-string types first: `n=3` for `integer | string` is the number 3; strings take the rest.
  for (const type of ORDER) {
    if (!types.includes(type)) continue;
    const value = convert(type, text);
    if (value !== undefined) return value;
  }
  if (types.includes('string')) return text;
  throw new UsageError(`${key}: expected ${types.join(' or ')}, got ${JSON.stringify(text)}`);
}

function convert(type: (typeof ORDER)[number], text: string): Json | undefined {
  switch (type) {
    case 'integer': {
      const n = Number(text);
      return INTEGER.test(text) && Number.isSafeInteger(n) ? n : undefined;
    }
    case 'number':
      return NUMBER.test(text) && Number.isFinite(Number(text)) ? Number(text) : undefined;
    case 'boolean':
      return text === 'true' ? true : text === 'false' ? false : undefined;
    case 'null':
      return text === 'null' ? null : undefined;
    case 'array':
    case 'object': {
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        return undefined;
      }
      const isArray = Array.isArray(value);
      const fits = type === 'array' ? isArray : typeof value === 'object' && value !== null && !isArray;
      return fits ? (value as Json) : undefined;
    }
  }
}

/**
 * The names in the schema's `required` list that `args` does not give, in the schema's order.
 * Checked before a call so that a forgotten argument is a local usage error, not a round trip to a
 * server whose error may not name it.
 *
 * @example
 * missingRequired({ type: 'object', required: ['city', 'days'] }, { city: 'Oslo' }); // ['days']
 */
export function missingRequired(schema: unknown, args: Readonly<Record<string, unknown>>): string[] {
  const required = (schema as { required?: unknown } | undefined)?.required;
  if (!Array.isArray(required)) return [];
  return required.filter((key): key is string => typeof key === 'string' && !Object.hasOwn(args, key));
}
