/**
 * The URI is the client's: matching it against a template must not backtrack catastrophically.
 * Before the fix `{.n}` against 28 dots took 7 s and `{#n}` against 29 commas 17 s (each extra
 * character doubled it); these inputs are thousands of characters long, so a regression would not
 * finish within the test's timeout rather than be slow.
 */
import { describe, expect, test } from 'vitest';
import { maxMatchLength, parseTemplate } from '../../src/server/uri-template-parse.js';
import { UriTemplate } from 'keel-mcp/server';
import { MAX_MATCH_URI_LENGTH } from '../../src/server/uri-template.js';

describe('adversarial URIs (review finding: ReDoS in the matcher)', () => {
  const nearMisses: Array<[string, string]> = [
    ['x://a{.n}z', `x://a${'.'.repeat(4000)}!`],
    ['x://a{#n}z', `x://a${','.repeat(4000)}!`],
    ['x://a{/n*}z', `x://a${'/b'.repeat(2000)}!`],
    ['x://a{;n*}z', `x://a${';n=1'.repeat(900)}!`],
    ['x://a{?n*}z', `x://a?${'n=1&'.repeat(900)}!`],
    ['x://{a}{b}{c}{d}z', `x://${'a'.repeat(4000)}!`],
    ['x://{+a}/{+b}/{+c}!', `x://${'/'.repeat(4000)}`],
  ];
  test.each(nearMisses)('%s against a near miss of thousands of characters is no match', (template, uri) => {
    expect(new UriTemplate(template).match(uri)).toBeUndefined();
  });

  test('the length a template accepts falls with its ambiguous boundaries', () => {
    const limit = (template: string): number => maxMatchLength(parseTemplate(template), MAX_MATCH_URI_LENGTH);
    expect(limit('a://{id}')).toBe(MAX_MATCH_URI_LENGTH); // nothing follows the expression
    expect(limit('a://{a}/{b}/{c}')).toBe(MAX_MATCH_URI_LENGTH); // '/' cannot be in a plain value
    expect(limit('f:///{name}.json')).toBe(3162); // '.' can: two ways to split
    expect(limit('x://{a}{b}{c}{d}z')).toBe(25);
  });

  test('a URI within the limit still matches; one beyond it never does', () => {
    const template = new UriTemplate('f:///{name}.json');
    const fits = `f:///${'n'.repeat(3162 - 'f:///.json'.length)}.json`;
    expect(template.match(fits)).toEqual({ name: 'n'.repeat(3162 - 'f:///.json'.length) });
    expect(template.match(`f:///n${'n'.repeat(3162)}.json`)).toBeUndefined();
    const plain = new UriTemplate('a://{id}');
    expect(plain.match(`a://${'x'.repeat(MAX_MATCH_URI_LENGTH - 4)}`)).toBeDefined();
    expect(plain.match(`a://${'x'.repeat(MAX_MATCH_URI_LENGTH)}`)).toBeUndefined();
  });
});
