/**
 * Issue 10, client: `x-mcp-header` validation and the header Value Encoding as pure functions
 * (spec: server/tools "x-mcp-header", Streamable HTTP "Value Encoding"). The invalid tool
 * definitions are those of the conformance scenario http-invalid-tool-headers.
 */
import { describe, expect, test } from 'vitest';
import { mirroredParams, paramHeaders } from '../../src/client/modern/param-headers.js';
import { decodeHeaderValue, encodeHeaderValue } from '../../src/core/header-value.js';

const prop = (schema: object) => ({ type: 'object', properties: { p: schema } });

describe('mirroredParams', () => {
  test('string, integer and boolean parameters, nested objects through properties', () => {
    const found = mirroredParams({
      type: 'object',
      properties: {
        region: { type: 'string', 'x-mcp-header': 'Region' },
        priority: { type: 'integer', 'x-mcp-header': 'Priority' },
        verbose: { type: ['boolean', 'null'], 'x-mcp-header': 'Verbose' },
        nested: { type: 'object', properties: { tenant: { type: 'string', 'x-mcp-header': 'Tenant' } } },
        plain: { type: 'number' },
      },
    });
    expect(found).toEqual({
      ok: true,
      params: [
        { path: ['region'], header: 'Region' },
        { path: ['priority'], header: 'Priority' },
        { path: ['verbose'], header: 'Verbose' },
        { path: ['nested', 'tenant'], header: 'Tenant' },
      ],
    });
  });

  test('a property named "x-mcp-header" is a parameter, not an annotation', () => {
    expect(mirroredParams({ type: 'object', properties: { 'x-mcp-header': { type: 'string' } } })).toEqual({
      ok: true,
      params: [],
    });
  });

  test.each([
    ['empty', prop({ type: 'string', 'x-mcp-header': '' }), /must not be empty/],
    ['not a string', prop({ type: 'string', 'x-mcp-header': 7 }), /must be a string/],
    ['object type', prop({ type: 'object', 'x-mcp-header': 'Obj' }), /string, integer or boolean parameter/],
    [
      'array type',
      prop({ type: 'array', items: { type: 'string' }, 'x-mcp-header': 'Arr' }),
      /string, integer or boolean parameter/,
    ],
    ['null type', prop({ type: 'null', 'x-mcp-header': 'Nul' }), /string, integer or boolean parameter/],
    ['number type', prop({ type: 'number', 'x-mcp-header': 'Num' }), /"number" is not permitted/],
    ['no type', prop({ 'x-mcp-header': 'Any' }), /found no `type`/],
    ['space in name', prop({ type: 'string', 'x-mcp-header': 'My Header' }), /HTTP field-name token/],
    ['colon in name', prop({ type: 'string', 'x-mcp-header': 'My:Header' }), /HTTP field-name token/],
    ['non-ASCII name', prop({ type: 'string', 'x-mcp-header': 'Régión' }), /HTTP field-name token/],
    [
      'control character in name',
      prop({ type: 'string', 'x-mcp-header': 'A\r\nB' }),
      /HTTP field-name token/,
    ],
    [
      'under items',
      {
        type: 'object',
        properties: { list: { type: 'array', items: { type: 'string', 'x-mcp-header': 'Item' } } },
      },
      /through `properties` only/,
    ],
    [
      'under anyOf',
      { type: 'object', properties: { a: { anyOf: [{ type: 'string', 'x-mcp-header': 'A' }] } } },
      /through `properties` only/,
    ],
    [
      'in $defs (reached by $ref)',
      {
        type: 'object',
        properties: { a: { $ref: '#/$defs/a' } },
        $defs: { a: { type: 'string', 'x-mcp-header': 'A' } },
      },
      /through `properties` only/,
    ],
    [
      'under additionalProperties',
      { type: 'object', additionalProperties: { type: 'string', 'x-mcp-header': 'A' } },
      /through `properties` only/,
    ],
    ['on the root', { type: 'object', 'x-mcp-header': 'Root' }, /the schema root/],
  ])('invalid: %s', (_name, schema, reason) => {
    const found = mirroredParams(schema);
    expect(found.ok).toBe(false);
    expect(found.ok ? '' : found.reason).toMatch(reason);
  });

  test.each([
    ['same case', 'Region', 'Region'],
    ['different case', 'Region', 'REGION'],
  ])('invalid: a duplicate name (%s)', (_name, a, b) => {
    const found = mirroredParams({
      type: 'object',
      properties: { a: { type: 'string', 'x-mcp-header': a }, b: { type: 'string', 'x-mcp-header': b } },
    });
    expect(found).toMatchObject({ ok: false, reason: expect.stringMatching(/already used by "a"/) });
  });
});

describe('encodeHeaderValue (the spec table), round-tripped by the server decoder', () => {
  test.each([
    ['us-west1', 'us-west1'],
    ['Hello, 世界', '=?base64?SGVsbG8sIOS4lueVjA==?='],
    [' padded ', '=?base64?IHBhZGRlZCA=?='],
    ['line1\nline2', '=?base64?bGluZTEKbGluZTI=?='],
    ['=?base64?literal?=', '=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?='],
    ['internal spaces stay plain', 'internal spaces stay plain'],
    ['\ttab', '=?base64?CXRhYg==?='],
    ['', ''],
  ])('%j → %j', (value, encoded) => {
    expect(encodeHeaderValue(value)).toBe(encoded);
    expect(decodeHeaderValue(encoded)).toBe(value);
  });
});

describe('paramHeaders', () => {
  const params = [
    { path: ['region'], header: 'Region' },
    { path: ['priority'], header: 'Priority' },
    { path: ['verbose'], header: 'Verbose' },
    { path: ['nested', 'tenant'], header: 'Tenant' },
  ];

  test('strings as-is, integers in decimal, booleans lowercase, nested paths', () => {
    expect(
      paramHeaders(params, { region: 'eu', priority: -7, verbose: false, nested: { tenant: 'ÿ' } }),
    ).toEqual({
      'Mcp-Param-Region': 'eu',
      'Mcp-Param-Priority': '-7',
      'Mcp-Param-Verbose': 'false',
      'Mcp-Param-Tenant': '=?base64?w78=?=',
    });
  });

  test('null or absent values get no header; a large safe integer is not written in exponent form', () => {
    expect(paramHeaders(params, { region: null, priority: 9007199254740991 })).toEqual({
      'Mcp-Param-Priority': '9007199254740991',
    });
    expect(paramHeaders(params, undefined)).toEqual({});
  });
});
