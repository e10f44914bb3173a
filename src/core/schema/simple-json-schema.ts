/**
 * A small, dependency-free checker for the JSON Schema subset most tool schemas use, so the
 * common case needs neither ajv (~36 ms to import) nor its compile step.
 *
 * It accepts a schema only when every keyword in it is one it implements exactly as ajv (the
 * options Keel uses: `strict: false`, `allErrors: true`) does — same verdict, same messages, same
 * order — and answers `undefined` for anything else, which then goes to ajv. Subset: `type`,
 * `properties`, `required`, `additionalProperties`, `items` (one schema), `enum`, `const`,
 * `minimum`/`maximum`/`exclusiveMinimum`/`exclusiveMaximum`, `minLength`/`maxLength`, `pattern`,
 * `minItems`/`maxItems`, plus annotations (`title`, `description`, `default`, `examples`, ...)
 * and `x-` extension keywords, which ajv ignores too. `test/server-api/simple-json-schema.test.ts`
 * checks the equivalence against ajv on generated schemas and values.
 */
import type { JsonValidator } from './json-validator.js';
import type { JsonSchema } from './to-json-schema.js';

/** Checks `data`; with `out`, collects every error (ajv's `allErrors`), else stops at the first. */
type Check = (data: unknown, path: string, out: string[] | undefined) => boolean;

const ANNOTATIONS = new Set([
  'title',
  'description',
  'default',
  'examples',
  '$comment',
  'deprecated',
  'readOnly',
  'writeOnly',
]);
const KEYWORDS = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'const',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minLength',
  'maxLength',
  'pattern',
  'minItems',
  'maxItems',
]);
const JSON_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'null', 'object', 'array']);
/** ajv-formats rejects a `pattern` with a `\Z` anchor in the meta-schema check. */
const Z_ANCHOR = /[^\\]\\Z/;

const VALID = Object.freeze({ ok: true as const });

/** Thrown for a keyword value ajv's meta-schema check would certainly reject. */
export class InvalidSchemaError extends Error {}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isNonNegativeInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}

/** ajv's type tests (`strictNumbers` off: NaN and ±Infinity are numbers, Infinity an integer). */
function hasType(type: string, data: unknown): boolean {
  switch (type) {
    case 'null':
      return data === null;
    case 'array':
      return Array.isArray(data);
    case 'object':
      return isObject(data);
    case 'integer':
      return typeof data === 'number' && !(data % 1) && !isNaN(data);
    default:
      return typeof data === type;
  }
}

/** Code points, counting a surrogate pair once (ajv's `ucs2length`). */
function codePoints(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    count++;
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      if ((text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) i++;
    }
  }
  return count;
}

/** Structural equality of JSON values (what ajv's `fast-deep-equal` decides for them). */
function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return a !== a && b !== b;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b) || Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const key of keys) {
    if (!Object.prototype.hasOwnProperty.call(b, key)) return false;
    if (!jsonEqual((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key])) return false;
  }
  return true;
}

const pointer = (key: string): string => '/' + key.replace(/~/g, '~0').replace(/\//g, '~1');

function fail(out: string[] | undefined, path: string, message: string): false {
  out?.push(`${path || '(root)'} ${message}`);
  return false;
}

/** Runs the checks of one group; in first-error mode stops at the first failure. */
function runAll(checks: Check[], data: unknown, path: string, out: string[] | undefined): boolean {
  let ok = true;
  for (const check of checks) {
    if (!check(data, path, out)) {
      if (!out) return false;
      ok = false;
    }
  }
  return ok;
}

function limit(keyword: string, bound: unknown): Check {
  if (typeof bound !== 'number') throw new InvalidSchemaError(`${keyword} must be a number`);
  const [holds, okText]: [(n: number) => boolean, string] =
    keyword === 'maximum'
      ? [(n) => n <= bound, '<=']
      : keyword === 'minimum'
        ? [(n) => n >= bound, '>=']
        : keyword === 'exclusiveMaximum'
          ? [(n) => n < bound, '<']
          : [(n) => n > bound, '>'];
  const message = `must be ${okText} ${bound}`;
  return (data, path, out) => holds(data as number) || fail(out, path, message);
}

function count(keyword: string, bound: unknown, measure: (data: never) => number, noun: string): Check {
  if (!isNonNegativeInteger(bound)) throw new InvalidSchemaError(`${keyword} must be a non-negative integer`);
  const most = keyword.startsWith('max');
  const message = `must NOT have ${most ? 'more' : 'fewer'} than ${bound} ${noun}`;
  return most
    ? (data, path, out) => measure(data as never) <= bound || fail(out, path, message)
    : (data, path, out) => measure(data as never) >= bound || fail(out, path, message);
}

function typesOf(type: unknown): string[] {
  if (type === undefined) return [];
  const types = typeof type === 'string' ? [type] : type;
  if (!Array.isArray(types) || types.length === 0 || new Set(types).size !== types.length) {
    throw new InvalidSchemaError('type must be a JSON type name or a non-empty list of distinct ones');
  }
  for (const name of types) {
    if (typeof name !== 'string' || !JSON_TYPES.has(name)) {
      throw new InvalidSchemaError(`type "${String(name)}" is not a JSON type`);
    }
  }
  return types as string[];
}

interface Groups {
  any: Check[];
  number: Check[];
  string: Check[];
  array: Check[];
  object: Check[];
}

/**
 * One schema node, or `undefined` when it leaves the subset. Keyword order inside each group and
 * group order (any, number, string, array, object) follow ajv's rule order, so error lists match.
 */
function compileNode(schema: unknown, root: boolean): Check | undefined {
  if (!isObject(schema)) return undefined;
  for (const key of Object.keys(schema)) {
    if (KEYWORDS.has(key) || ANNOTATIONS.has(key) || key.startsWith('x-')) continue;
    if (root && key === '$schema') continue;
    return undefined;
  }
  const types = typesOf(schema.type);
  const groups: Groups = { any: [], number: [], string: [], array: [], object: [] };

  if (schema.const !== undefined) {
    const expected = schema.const;
    groups.any.push(
      (data, path, out) => jsonEqual(data, expected) || fail(out, path, 'must be equal to constant'),
    );
  }
  if (schema.enum !== undefined) {
    const allowed = schema.enum;
    // ajv's meta-schema wants distinct values; leave such a schema to ajv (it rejects it).
    if (!Array.isArray(allowed) || allowed.length === 0) return undefined;
    if (allowed.some((value, i) => allowed.findIndex((other) => jsonEqual(value, other)) !== i))
      return undefined;
    groups.any.push(
      (data, path, out) =>
        allowed.some((value) => jsonEqual(data, value)) ||
        fail(out, path, 'must be equal to one of the allowed values'),
    );
  }

  for (const keyword of ['maximum', 'minimum', 'exclusiveMaximum', 'exclusiveMinimum']) {
    if (schema[keyword] !== undefined) groups.number.push(limit(keyword, schema[keyword]));
  }

  for (const keyword of ['maxLength', 'minLength']) {
    if (schema[keyword] !== undefined)
      groups.string.push(count(keyword, schema[keyword], codePoints, 'characters'));
  }
  if (schema.pattern !== undefined) {
    const source = schema.pattern;
    if (typeof source !== 'string' || Z_ANCHOR.test(source)) return undefined;
    let regExp: RegExp;
    try {
      regExp = new RegExp(source, 'u');
    } catch {
      return undefined;
    }
    const message = `must match pattern "${source}"`;
    groups.string.push((data, path, out) => regExp.test(data as string) || fail(out, path, message));
  }

  for (const keyword of ['maxItems', 'minItems']) {
    if (schema[keyword] !== undefined) {
      groups.array.push(count(keyword, schema[keyword], (data: unknown[]) => data.length, 'items'));
    }
  }
  if (schema.items !== undefined) {
    const item = compileNode(schema.items, false);
    if (!item) return undefined;
    groups.array.push((data, path, out) => {
      const list = data as unknown[];
      let ok = true;
      for (let i = 0; i < list.length; i++) {
        if (!item(list[i], out ? `${path}/${i}` : '', out)) {
          if (!out) return false;
          ok = false;
        }
      }
      return ok;
    });
  }

  if (!compileObjectKeywords(schema, groups.object)) return undefined;
  return assemble(schema, types, groups);
}

/** `required`, `additionalProperties`, `properties` — false when one leaves the subset. */
function compileObjectKeywords(schema: Record<string, unknown>, checks: Check[]): boolean {
  const required = schema.required;
  if (required !== undefined) {
    if (
      !Array.isArray(required) ||
      required.some((name) => typeof name !== 'string') ||
      new Set(required).size !== required.length
    ) {
      throw new InvalidSchemaError('required must be a list of distinct property names');
    }
    if ((required as string[]).includes('__proto__')) return false;
    for (const name of required as string[]) {
      const message = `must have required property '${name}'`;
      checks.push(
        (data, path, out) =>
          (data as Record<string, unknown>)[name] !== undefined || fail(out, path, message),
      );
    }
  }

  const properties = schema.properties;
  let names: string[] = [];
  const compiled: [string, string, Check][] = [];
  if (properties !== undefined) {
    if (!isObject(properties)) return false;
    names = Object.keys(properties);
    for (const name of names) {
      if (name === '__proto__') return false;
      const check = compileNode(properties[name], false);
      if (!check) return false;
      compiled.push([name, pointer(name), check]);
    }
  }

  const additional = schema.additionalProperties;
  if (additional !== undefined && additional !== true) {
    const known = new Set(names);
    const extra = additional === false ? undefined : compileNode(additional, false);
    if (additional !== false && !extra) return false;
    checks.push((data, path, out) => {
      let ok = true;
      for (const key in data as Record<string, unknown>) {
        if (known.has(key)) continue;
        const good = extra
          ? extra((data as Record<string, unknown>)[key], out ? path + pointer(key) : '', out)
          : fail(out, path, 'must NOT have additional properties');
        if (!good) {
          if (!out) return false;
          ok = false;
        }
      }
      return ok;
    });
  }

  if (compiled.length > 0) {
    checks.push((data, path, out) => {
      const object = data as Record<string, unknown>;
      let ok = true;
      for (const [name, escaped, check] of compiled) {
        const value = object[name];
        if (value !== undefined && !check(value, out ? path + escaped : '', out)) {
          if (!out) return false;
          ok = false;
        }
      }
      return ok;
    });
  }
  return true;
}

const GROUP_KEYWORDS: Record<'number' | 'string' | 'array' | 'object', string[]> = {
  number: ['maximum', 'minimum', 'exclusiveMaximum', 'exclusiveMinimum'],
  string: ['maxLength', 'minLength', 'pattern'],
  array: ['maxItems', 'minItems', 'items'],
  object: ['required', 'additionalProperties', 'properties'],
};

/**
 * Puts the groups together the way ajv's generated code orders and guards them. A group is in use
 * when one of its keywords is present, even one that checks nothing (`required: []`), as in ajv.
 */
function assemble(schema: Record<string, unknown>, types: string[], groups: Groups): Check {
  const typed = (['number', 'string', 'array', 'object'] as const)
    .filter((group) => GROUP_KEYWORDS[group].some((keyword) => schema[keyword] !== undefined))
    .map((group): [string, Check[]] => [group, groups[group]]);
  // ajv checks the type up front unless it is a single type whose group is in use; then the type
  // error is reported in that group's `else` branch, i.e. in the group's position.
  const deferred = types.length === 1 && typed.some(([group]) => group === types[0]);
  const typeMessage = `must be ${types.join(',')}`;
  const any = groups.any;
  return (data, path, out) => {
    let ok = true;
    if (types.length > 0 && !deferred && !types.some((type) => hasType(type, data))) {
      if (!out) return false;
      fail(out, path, typeMessage);
      ok = false;
    }
    if (any.length > 0 && !runAll(any, data, path, out)) {
      if (!out) return false;
      ok = false;
    }
    for (const [group, checks] of typed) {
      if (hasType(group, data)) {
        if (!runAll(checks, data, path, out)) {
          if (!out) return false;
          ok = false;
        }
      } else if (deferred && types[0] === group) {
        if (!out) return false;
        fail(out, path, typeMessage);
        ok = false;
      }
    }
    return ok;
  };
}

/**
 * A validator for `schema` when it stays inside the subset, else `undefined` (use ajv). Throws
 * {@link InvalidSchemaError} for a keyword value ajv would reject as an invalid schema.
 *
 * @example
 * const check = compileSimpleJsonSchema({ type: 'object', properties: { text: { type: 'string' } }, required: ['text'] });
 * check?.({ text: 1 }); // { ok: false, message: '/text must be string' }
 */
export function compileSimpleJsonSchema(schema: JsonSchema): JsonValidator | undefined {
  const check = compileNode(schema, true);
  if (!check) return undefined;
  return (value) => {
    if (check(value, '', undefined)) return VALID;
    const out: string[] = [];
    check(value, '', out);
    return { ok: false, message: out.join('; ') || 'does not match the schema' };
  };
}
