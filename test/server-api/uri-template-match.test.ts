/**
 * Matching a URI against an RFC 6570 template (src/server/uri-template-parse.ts, used by
 * UriTemplate.match): every operator, lists, what a template cannot produce, malformed templates,
 * and the round trip (match what an expansion produced, expand the match: the same URI).
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { UriTemplate } from 'keel-mcp/server';

const match = (template: string, uri: string) => new UriTemplate(template).match(uri);

describe('each operator', () => {
  test('simple and reserved expansion, several variables in one expression', () => {
    expect(match('a://{x,y}', 'a://1,2')).toEqual({ x: '1', y: '2' });
    expect(match('a://{x,y}', 'a://1')).toEqual({ x: '1' });
    expect(match('a://{+base}/index', 'a://x/y/index')).toEqual({ base: 'x/y' });
    expect(match('a://{+q}', 'a://x%20y')).toEqual({ q: 'x y' });
    expect(match('a://p{#frag}', 'a://p#s/t')).toEqual({ frag: 's/t' });
    expect(match('a://p{#frag}', 'a://p')).toEqual({});
  });

  test('label, path segment and path-style parameters, exploded lists', () => {
    expect(match('a://f{.ext}', 'a://f.tar.gz')).toEqual({ ext: 'tar.gz' });
    expect(match('a://r{/p*}', 'a://r/a/b/c')).toEqual({ p: ['a', 'b', 'c'] });
    expect(match('a://r{/p*}', 'a://r/a')).toEqual({ p: 'a' });
    expect(match('a://r{/x,y}', 'a://r/1/2')).toEqual({ x: '1', y: '2' });
    expect(match('a://m{;x,y}', 'a://m;x=1;y=2')).toEqual({ x: '1', y: '2' });
    expect(match('a://m{;list*}', 'a://m;list=a;list=b')).toEqual({ list: ['a', 'b'] });
    expect(match('a://{id}{?tag*}', 'a://7?tag=a&tag=b')).toEqual({ id: '7', tag: ['a', 'b'] });
  });

  test('a query expression in the middle of a template is matched by name too', () => {
    expect(match('a://s{?q,n}/tail', 'a://s?q=x&n=2/tail')).toEqual({ q: 'x', n: '2' });
    expect(match('a://s{?q}/tail', 'a://s?other=x/tail')).toBeUndefined();
  });

  test('a prefix modifier matches no more than its length', () => {
    expect(match('a://{x:3}', 'a://abc')).toEqual({ x: 'abc' });
    expect(match('a://{x:3}', 'a://abcd')).toBeUndefined();
  });
});

describe('what the template cannot produce does not match', () => {
  test.each([
    ['a://{id}', 'a://1/2'], // a simple expansion encodes "/"
    ['a://{id}', 'a://a b'], // nor leaves a space
    ['a://{id}', 'a://%E0%A4%A'], // a malformed escape
    ['a://{id}', 'a://1?x=2'], // no query expression
    ['a://r{/p}', 'a://r/a/b'], // one unexploded segment
    ['a://x/{id}', 'a://y/1'], // literal differs
    ['a://x', 'a://x/'],
    ['a://{.e}', 'a://e'], // "." must lead
  ])('%s against %s', (template, uri) => {
    expect(match(template, uri)).toBeUndefined();
  });
});

describe('malformed templates throw a clear error at construction', () => {
  test.each([
    ['a://{id', 'is never closed'],
    ['a://id}', 'without "{"'],
    ['a://{}', 'bad variable ""'],
    ['a://{a b}', 'bad variable "a b"'],
    ['a://{x:0}', 'bad variable "x:0"'],
    ['a://{{x}}', 'inside the expression'],
  ])('%s', (template, why) => {
    expect(() => new UriTemplate(template)).toThrow(`Invalid URI template "${template}"`);
    expect(() => new UriTemplate(template)).toThrow(why);
  });
});

describe('round trip', () => {
  const value = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 });

  test('a simple variable comes back exactly, whatever it holds', () => {
    const t = new UriTemplate('a://items/{id}/data');
    fc.assert(
      fc.property(value, (id) => {
        expect(t.match(t.expand({ id }))).toEqual({ id });
      }),
      { numRuns: 300 },
    );
  });

  test('every operator: matching an expansion and expanding the match gives the same URI', () => {
    const templates = [
      'a://{x,y}/z',
      'a://{+p}',
      'a://h{#f}',
      'a://f{.e}',
      'a://r{/s*}',
      'a://m{;k,l}',
      'a://{x}{?q,r}',
    ].map((template) => new UriTemplate(template));
    fc.assert(
      fc.property(
        fc.constantFrom(...templates),
        fc.dictionary(fc.constantFrom('x', 'y', 'p', 'f', 'e', 's', 'k', 'l', 'q', 'r'), value),
        (t, variables) => {
          const uri = t.expand(variables);
          const found = t.match(uri);
          expect(found, uri).toBeDefined();
          expect(t.expand(found ?? {})).toBe(uri);
        },
      ),
      { numRuns: 500 },
    );
  });
});
