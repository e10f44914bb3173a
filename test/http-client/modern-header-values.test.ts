/**
 * Issue 10: the spec's Value Encoding for `Mcp-Name` / `Mcp-Param-*` on the client side
 * (`encodeHeaderValue`), checked against the spec's own examples and against the server's decoder.
 */
import { describe, expect, it } from 'vitest';
import { decodeHeaderValue, encodeHeaderValue } from '../../src/core/header-value.js';

describe('encodeHeaderValue', () => {
  it.each([
    ['us-west1', 'us-west1'],
    ['Hello, 世界', '=?base64?SGVsbG8sIOS4lueVjA==?='],
    [' padded ', '=?base64?IHBhZGRlZCA=?='],
    ['line1\nline2', '=?base64?bGluZTEKbGluZTI=?='],
    ['=?base64?literal?=', '=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?='],
  ])('the spec example %j encodes as %j', (value, encoded) => {
    expect(encodeHeaderValue(value)).toBe(encoded);
  });

  it.each([
    ['inner spaces stay plain', 'a b c', 'a b c'],
    ['an inner tab is encoded (a control character)', 'a\tb', '=?base64?YQli?='],
    ['a URI stays plain', 'file:///projects/app/config.json?x=1', 'file:///projects/app/config.json?x=1'],
    ['the empty string stays plain', '', ''],
    ['a trailing tab is encoded', 'tab\t', '=?base64?dGFiCQ==?='],
    ['DEL is encoded', 'a\x7f', '=?base64?YX8=?='],
    ['only the prefix is not the sentinel', '=?base64?abc', '=?base64?abc'],
  ])('%s', (_label, value, encoded) => {
    expect(encodeHeaderValue(value)).toBe(encoded);
  });

  it.each(['wetter-für-köln', '𝔘𝔫𝔦𝔠𝔬𝔡𝔢 😀', ' x ', '=?base64?SGk=?=', 'plain', 'a\r\nInjected: 1'])(
    'the server decodes %j back to itself',
    (value) => {
      const encoded = encodeHeaderValue(value);
      expect(encoded).toMatch(/^[\x20-\x7e]*$/);
      expect(decodeHeaderValue(encoded)).toBe(value);
    },
  );
});
