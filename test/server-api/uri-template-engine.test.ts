import fc from 'fast-check';
import UriTemplateLite from 'uri-template-lite';
import { describe, expect, test } from 'vitest';
import { compileUriTemplate } from '../../src/server/uri-template-engine.js';

// The built-in engine replaced uri-template-lite; expansion and matching must stay exactly what the
// library did, so it is the oracle here (it is still installed for this test).

const LITERALS = [
  'test://',
  'file:///',
  '/',
  'a',
  '.',
  '-',
  '~',
  'data',
  '%20',
  '(',
  '$',
  '*',
  'é',
  ',',
  '=',
  '&',
];
const OPERATORS = ['', '+', '#', '.', '/', ';', '?', '&'];
const NAMES = ['a', 'b', 'id', 'x.y', 'v_1'];
const MODIFIERS = ['', '', '*', ':2', ':5'];
const TEXTS = ['', 'x', 'a b', 'a/b', 'a,b', "!*'()", '100%', 'é😀', '&=?#', 'ab.cd', 'a%20b', '~-_.'];

const varspec = fc
  .tuple(fc.constantFrom(...NAMES), fc.constantFrom(...MODIFIERS))
  .map(([name, modifier]) => name + modifier);
const expression = fc
  .tuple(fc.constantFrom(...OPERATORS), fc.array(varspec, { minLength: 1, maxLength: 3 }))
  .map(([operator, vars]) => `{${operator}${vars.join(',')}}`);
const template = fc
  .array(fc.oneof(fc.constantFrom(...LITERALS), expression, fc.constantFrom('{a b}', '{', '}')), {
    minLength: 1,
    maxLength: 5,
  })
  .map((parts) => parts.join(''));

const value = fc.oneof(
  fc.constantFrom(...TEXTS),
  fc.integer({ min: 0, max: 999 }),
  fc.array(fc.constantFrom(...TEXTS), { maxLength: 3 }),
  fc.dictionary(fc.constantFrom('k', 'l m', 'n/o'), fc.constantFrom(...TEXTS), { maxKeys: 2 }),
  fc.constant(undefined),
);
const variables = fc.record(Object.fromEntries(NAMES.map((name) => [name, value])), { requiredKeys: [] });

/** A value or the error class: a prefix that cuts a surrogate pair in half throws in both. */
function outcome(run: () => unknown): unknown {
  try {
    return run();
  } catch (error) {
    return { threw: (error as Error).name };
  }
}

describe('the URI template engine behaves as uri-template-lite', () => {
  test('expansion: same text for generated templates and values', () => {
    fc.assert(
      fc.property(template, variables, (source, vars) => {
        // The library slices numbers for prefixes and throws; the engine stringifies them first.
        const usable = Object.fromEntries(
          Object.entries(vars).map(([k, v]) => [k, typeof v === 'number' ? String(v) : v]),
        );
        expect(outcome(() => compileUriTemplate(source).expand(usable as never))).toEqual(
          outcome(() => new UriTemplateLite(source).expand(usable)),
        );
      }),
      { numRuns: 1500, seed: 6570 },
    );
  });

  test('matching: same variables (or no match) for expansions and for arbitrary URIs', () => {
    fc.assert(
      fc.property(
        template,
        variables,
        fc.array(fc.constantFrom(...LITERALS, ...TEXTS, '?', '#', ';'), { maxLength: 5 }),
        (source, vars, pieces) => {
          const lite = new UriTemplateLite(source);
          const usable = Object.fromEntries(
            Object.entries(vars).map(([k, v]) => [k, typeof v === 'number' ? String(v) : v]),
          );
          const engine = compileUriTemplate(source);
          const expanded = outcome(() => lite.expand(usable));
          for (const uri of [typeof expanded === 'string' ? expanded : '', pieces.join('')]) {
            expect(engine.match(uri)).toEqual(lite.match(uri));
          }
        },
      ),
      { numRuns: 1500, seed: 6571 },
    );
  });

  test('typical MCP templates', () => {
    const t = compileUriTemplate('test://template/{id}/data');
    expect(t.match('test://template/a%20b/data')).toEqual({ id: 'a b' });
    expect(t.expand({ id: 'a b' })).toBe('test://template/a%20b/data');
    const path = compileUriTemplate('file:///{+path}');
    expect(path.match('file:///a/b/c.txt')).toEqual({ path: 'a/b/c.txt' });
    expect(compileUriTemplate('users://{id}{?fields,lang}').expand({ id: 7, lang: 'en' })).toBe(
      'users://7?lang=en',
    );
    expect(compileUriTemplate('x://{a}').match('y://1')).toBeNull();
  });
});
