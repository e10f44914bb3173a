/**
 * Review fix (brief SF item 3): client and server judge `x-mcp-header` annotations by one rule set
 * (src/core/param-header-rules.ts). For every schema here, the server registers the tool exactly
 * when the client keeps it, and the parameters the client mirrors are the ones the server checks.
 * Includes the reviewer's two disagreements: an `enum` without `type` (the server accepted it, the
 * client dropped it) and an annotation under draft-07 `dependencies` (the client did not look
 * there, the server refused it).
 */
import { describe, expect, test } from 'vitest';
import { mirroredParams } from '../../src/client/modern/param-headers.js';
import type { JsonObject } from 'keel-mcp/core';
import { McpServer } from 'keel-mcp/server';
import { paramHeadersOf } from '../../src/server/modern/param-headers.js';

const object = (properties: JsonObject, extra: JsonObject = {}): JsonObject => ({
  type: 'object',
  properties,
  ...extra,
});
const annotated = (schema: JsonObject, header = 'H'): JsonObject => ({ ...schema, 'x-mcp-header': header });

function serverAccepts(input: JsonObject): boolean {
  const server = new McpServer({ name: 'agree', version: '1' }, { onerror: undefined });
  try {
    server.tool('t', { description: 'x', input }, () => 'ran');
    return true;
  } catch {
    return false;
  }
}

const INVALID: [string, JsonObject][] = [
  ['an enum of strings without type', object({ region: annotated({ enum: ['us', 'eu'] }, 'Region') })],
  ['a const without type', object({ c: annotated({ const: 'fixed' }) })],
  [
    'under draft-07 dependencies',
    object(
      { a: { type: 'string' } },
      { dependencies: { a: { properties: { b: annotated({ type: 'string' }, 'B') } } } },
    ),
  ],
  [
    'under dependentSchemas',
    object({}, { dependentSchemas: { a: object({ b: annotated({ type: 'string' }) }) } }),
  ],
  ['under items', object({ l: { type: 'array', items: annotated({ type: 'string' }) } })],
  ['under prefixItems', object({ l: { type: 'array', prefixItems: [annotated({ type: 'string' })] } })],
  ['under contains', object({ l: { type: 'array', contains: annotated({ type: 'string' }) } })],
  ['under additionalProperties', object({}, { additionalProperties: annotated({ type: 'string' }) })],
  ['under unevaluatedProperties', object({}, { unevaluatedProperties: annotated({ type: 'string' }) })],
  ['under propertyNames', object({}, { propertyNames: annotated({ type: 'string' }) })],
  ['under patternProperties', object({}, { patternProperties: { '^a': annotated({ type: 'string' }) } })],
  ['under not', object({ n: { not: annotated({ type: 'string' }) } })],
  ['under allOf', object({ n: { allOf: [annotated({ type: 'string' })] } })],
  ['under oneOf', object({ n: { oneOf: [annotated({ type: 'string' })] } })],
  ['under else', object({}, { if: {}, else: object({ a: annotated({ type: 'string' }) }) })],
  ['in $defs', object({ r: { $ref: '#/$defs/R' } }, { $defs: { R: annotated({ type: 'string' }) } })],
  ['in definitions', object({}, { definitions: { R: annotated({ type: 'string' }) } })],
  ['under an unknown keyword', object({}, { 'x-vendor': { nested: annotated({ type: 'string' }) } })],
  ['on the root', annotated({ type: 'object' })],
  ['a number', object({ n: annotated({ type: 'number' }) })],
  ['an object', object({ o: annotated({ type: 'object' }) })],
  ['an array', object({ a: annotated({ type: 'array', items: { type: 'string' } }) })],
  ['null', object({ n: annotated({ type: 'null' }) })],
  ['two primitive types', object({ v: annotated({ type: ['string', 'integer'] }) })],
  ['an empty name', object({ v: annotated({ type: 'string' }, '') })],
  ['a name with a space', object({ v: annotated({ type: 'string' }, 'My Region') })],
  ['a name with a colon', object({ v: annotated({ type: 'string' }, 'A:B') })],
  ['a non-ASCII name', object({ v: annotated({ type: 'string' }, 'Région') })],
  ['a name with CR LF', object({ v: annotated({ type: 'string' }, 'A\r\nB') })],
  ['a non-string name', { type: 'object', properties: { v: { type: 'string', 'x-mcp-header': 5 } } }],
  [
    'a duplicate ignoring case',
    object({
      a: annotated({ type: 'string' }, 'Zone'),
      b: object({ c: annotated({ type: 'string' }, 'ZONE') }),
    }),
  ],
];

const VALID: [string, JsonObject, { path: string[]; header: string }[]][] = [
  [
    'string, integer, boolean',
    object({
      s: annotated({ type: 'string' }, 'S'),
      i: annotated({ type: 'integer' }, 'I'),
      b: annotated({ type: 'boolean' }, 'B'),
    }),
    [
      { path: ['s'], header: 'S' },
      { path: ['i'], header: 'I' },
      { path: ['b'], header: 'B' },
    ],
  ],
  [
    'nullable, and an enum with its type',
    object({
      s: annotated({ type: ['string', 'null'] }, 'S'),
      e: annotated({ type: 'string', enum: ['us', 'eu'] }, 'E'),
    }),
    [
      { path: ['s'], header: 'S' },
      { path: ['e'], header: 'E' },
    ],
  ],
  [
    'nested through properties',
    object({ a: object({ b: annotated({ type: 'string' }, 'Deep') }) }),
    [{ path: ['a', 'b'], header: 'Deep' }],
  ],
  [
    'the key inside data, and a property named x-mcp-header',
    object({
      o: { type: 'object', default: { 'x-mcp-header': 1 }, examples: [{ 'x-mcp-header': 'x' }] },
      'x-mcp-header': { type: 'string' },
    }),
    [],
  ],
  ['no annotation at all', object({ q: { type: 'array', items: { anyOf: [{ type: 'number' }] } } }), []],
];

describe('client and server agree', () => {
  test.each(INVALID)('invalid: %s — the server refuses it and the client drops it', (_name, schema) => {
    const client = mirroredParams(schema);
    expect(client.ok).toBe(false);
    expect(serverAccepts(schema)).toBe(false);
  });

  test.each(VALID)('valid: %s — both accept, the same parameters', (_name, schema, params) => {
    expect(serverAccepts(schema)).toBe(true);
    expect(mirroredParams(schema)).toEqual({ ok: true, params });
    expect(paramHeadersOf(schema)).toEqual(params);
  });
});

test("the client's reason names the property and the rule, as the server's error does", () => {
  const schema = object({ region: annotated({ enum: ['us', 'eu'] }, 'Region') });
  const client = mirroredParams(schema);
  expect(client).toEqual({
    ok: false,
    reason:
      'invalid x-mcp-header on "region": it must declare `type` string, integer or boolean (found no `type`)',
  });
  const server = new McpServer({ name: 'agree', version: '1' });
  expect(() => server.tool('t', { description: 'x', input: schema }, () => 'ran')).toThrow(
    `Tool "t": ${client.ok ? '' : client.reason}`,
  );
});
