/**
 * Issue 10 / brief SX item 1: `server.tool(...)` refuses an `x-mcp-header` annotation 2026-07-28
 * calls invalid (server/tools.mdx, transports/streamable-http.mdx "Schema Extension"), with an
 * error naming the tool, the property and the rule; valid annotations register and are listed as
 * given. The invalid cases include every tool of the conformance scenario
 * `http-invalid-tool-headers`.
 */
import { expect, test } from 'vitest';
import type { JsonObject } from 'keel-mcp/core';
import { McpServer } from 'keel-mcp/server';
import { checkParamHeaderAnnotations } from '../../src/server/modern/param-header-rules.js';
import { connectRaw } from './harness.js';

function register(input: JsonObject): () => void {
  const server = new McpServer({ name: 'rules', version: '1' });
  return () => server.tool('bad_tool', { description: 'x', input }, () => 'ran');
}

function object(properties: JsonObject, extra: JsonObject = {}): JsonObject {
  return { type: 'object', properties, ...extra };
}

const ANNOTATED = (type: unknown, header: unknown = 'H'): JsonObject => ({ type, 'x-mcp-header': header });

test.each([
  // The conformance scenario's invalid tools.
  ['an empty value', object({ value: ANNOTATED('string', '') }), '"value"', 'must not be empty'],
  ['an object parameter', object({ data: ANNOTATED('object') }), '"data"', 'found type "object"'],
  [
    'an array parameter',
    object({ items: { type: 'array', items: { type: 'string' }, 'x-mcp-header': 'Items' } }),
    '"items"',
    'found type "array"',
  ],
  ['a null parameter', object({ nil: ANNOTATED('null') }), '"nil"', 'found type "null"'],
  [
    'a duplicate, same case',
    object({ field1: ANNOTATED('string', 'Region'), field2: ANNOTATED('string', 'Region') }),
    '"field2"',
    'already used by "field1"',
  ],
  [
    'a duplicate, other case',
    object({ field1: ANNOTATED('string', 'MyField'), field2: ANNOTATED('string', 'myfield') }),
    '"field2"',
    'ignoring case',
  ],
  ['a space', object({ value: ANNOTATED('string', 'My Region') }), '"value"', 'HTTP field-name token'],
  ['a colon', object({ value: ANNOTATED('string', 'Region:Primary') }), '"value"', 'HTTP field-name token'],
  [
    'a non-ASCII letter',
    object({ value: ANNOTATED('string', 'Région') }),
    '"value"',
    'HTTP field-name token',
  ],
  [
    'a control character',
    object({ value: ANNOTATED('string', 'Region\t1') }),
    '"value"',
    'HTTP field-name token',
  ],
  ['CR LF', object({ value: ANNOTATED('string', 'A\r\nB') }), '"value"', 'HTTP field-name token'],
  // The rules the scenario does not exercise.
  ['a number parameter', object({ ratio: ANNOTATED('number') }), '"ratio"', '"number" is not permitted'],
  [
    'number in a type list',
    object({ ratio: ANNOTATED(['number', 'null']) }),
    '"ratio"',
    '"number" is not permitted',
  ],
  ['two types', object({ v: ANNOTATED(['string', 'integer']) }), '"v"', 'found type ["string","integer"]'],
  ['no type at all', object({ v: { 'x-mcp-header': 'V' } }), '"v"', 'found no `type`'],
  // The client drops these (the official SDK's too), so the server refuses them: one rule set.
  [
    'an enum without type',
    object({ e: { enum: ['a', 'b'], 'x-mcp-header': 'E' } }),
    '"e"',
    'found no `type`',
  ],
  ['a const without type', object({ c: { const: 'fixed', 'x-mcp-header': 'C' } }), '"c"', 'found no `type`'],
  ['a non-string value', object({ v: ANNOTATED('string', 5) }), '"v"', 'must be a string'],
  [
    'a duplicate at another depth',
    object({ a: ANNOTATED('string', 'Zone'), b: object({ c: ANNOTATED('string', 'ZONE') }) }),
    '"b.c"',
    'already used by "a"',
  ],
  [
    'under items',
    object({ list: { type: 'array', items: ANNOTATED('string', 'Item') } }),
    '"list.items"',
    'through `properties` only',
  ],
  [
    'under anyOf',
    object({ either: { anyOf: [ANNOTATED('string', 'Either'), { type: 'null' }] } }),
    '"either.anyOf.0"',
    'through `properties` only',
  ],
  [
    'under $defs (reached by $ref)',
    object({ r: { $ref: '#/$defs/R' } }, { $defs: { R: ANNOTATED('string', 'R') } }),
    '"$defs.R"',
    'through `properties` only',
  ],
  [
    'under if/then',
    object({ a: { type: 'string' } }, { if: {}, then: object({ a: ANNOTATED('string', 'A') }) }),
    '"then.properties.a"',
    'through `properties` only',
  ],
  ['on the root', { type: 'object', 'x-mcp-header': 'Root' }, 'the schema root', 'through `properties` only'],
] as [string, JsonObject, string, string][])('refused at registration: %s', (_label, input, where, rule) => {
  const attempt = register(input);
  expect(attempt).toThrow(`Tool "bad_tool": invalid x-mcp-header on ${where}: `);
  expect(attempt).toThrow(rule);
});

test('a refused tool is not registered: the name stays free and tools/list does not show it', async () => {
  const server = new McpServer({ name: 'rules', version: '1' });
  expect(() =>
    server.tool('t', { description: 'x', input: object({ n: ANNOTATED('number') }) }, () => 'no'),
  ).toThrow('Tool "t"');
  server.tool('t', { description: 'x', input: object({ n: ANNOTATED('integer', 'N') }) }, () => 'yes');
  const raw = connectRaw(server);
  const listed = await raw.modern('tools/list');
  expect((listed.tools as JsonObject[]).map((tool) => tool.name)).toEqual(['t']);
  await raw.close();
});

test.each([
  [
    'string, integer, boolean',
    object({ s: ANNOTATED('string', 'S'), i: ANNOTATED('integer', 'I'), b: ANNOTATED('boolean', 'B') }),
  ],
  ['nullable (a type list with null)', object({ s: ANNOTATED(['string', 'null'], 'S') })],
  ['nested through properties', object({ a: object({ b: object({ c: ANNOTATED('string', 'Deep') }) }) })],
  ['every tchar', object({ s: ANNOTATED('string', "A-z_0.9!#$%&'*+^`|~") })],
  [
    'a property named x-mcp-header (a name, not an annotation)',
    object({ 'x-mcp-header': { type: 'object' } }),
  ],
  [
    'the annotation key inside data (default, examples)',
    object({ o: { type: 'object', default: { 'x-mcp-header': 1 } } }),
  ],
  ['no annotation at all', object({ q: { type: 'array', items: { anyOf: [{ type: 'number' }] } } })],
] as [string, JsonObject][])('accepted and listed unchanged: %s', async (_label, input) => {
  const server = new McpServer({ name: 'rules', version: '1' });
  server.tool('ok', { description: 'x', input }, () => 'ran');
  const raw = connectRaw(server);
  const listed = await raw.modern('tools/list');
  expect((listed.tools as JsonObject[])[0]!.inputSchema).toEqual(input);
  await raw.close();
});

test('a schema that contains itself is walked without looping', () => {
  const node: JsonObject = { type: 'object', properties: {} };
  (node.properties as JsonObject).self = node;
  expect(() => checkParamHeaderAnnotations('loop', node)).not.toThrow();
});

test('zod schemas: .meta() annotations are checked the same way', async () => {
  const { z } = await import('zod');
  const server = new McpServer({ name: 'rules', version: '1' });
  server.tool(
    'zod_ok',
    {
      description: 'x',
      input: z.object({ region: z.string().meta({ 'x-mcp-header': 'Region' }), n: z.number().int() }),
    },
    () => 'ran',
  );
  expect(() =>
    server.tool(
      'zod_bad',
      { description: 'x', input: z.object({ ratio: z.number().meta({ 'x-mcp-header': 'Ratio' }) }) },
      () => 'ran',
    ),
  ).toThrow(
    'Tool "zod_bad": invalid x-mcp-header on "ratio": it must be on a string, integer or boolean parameter; type "number" is not permitted',
  );
});
