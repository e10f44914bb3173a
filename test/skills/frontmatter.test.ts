/**
 * Issue 27 skills: the YAML frontmatter subset Keel reads from SKILL.md (no YAML dependency), and
 * the constructs it refuses rather than guessing.
 */
import { describe, expect, test } from 'vitest';
import { parseFrontmatter } from '../../src/core/skills/frontmatter.js';

const front = (yaml: string) => parseFrontmatter(`---\n${yaml}\n---\nbody`)?.frontmatter;

describe('issue 27 skills: frontmatter', () => {
  test('scalars, quoting, comments and typed values', () => {
    expect(
      front(
        [
          'name: pdf # trailing comment',
          'description: "Quoted: with \\"escapes\\" and \\u00e9"',
          "single: 'it''s'",
          'version: 2',
          'ratio: 0.5',
          'enabled: true',
          'nothing: ~',
          'colon: a:b',
        ].join('\n'),
      ),
    ).toEqual({
      name: 'pdf',
      description: 'Quoted: with "escapes" and é',
      single: "it's",
      version: 2,
      ratio: 0.5,
      enabled: true,
      nothing: null,
      colon: 'a:b',
    });
  });

  test('nested mappings, block and flow sequences, block scalars, folded plain scalars', () => {
    expect(
      front(
        [
          'metadata:',
          '  owner: me',
          '  nested:',
          '    deep: 1',
          'allowed-tools:',
          '  - Read',
          '  - Bash(git:*)',
          'list-at-margin:',
          '- a',
          '- b',
          'flow: [x, "y, z", 3]',
          'items:',
          '  - name: one',
          '    size: 1',
          'literal: |',
          '  line 1',
          '  line 2',
          'folded: >-',
          '  one',
          '  two',
          'description: a long',
          '  description wrapped',
        ].join('\n'),
      ),
    ).toEqual({
      metadata: { owner: 'me', nested: { deep: 1 } },
      'allowed-tools': ['Read', 'Bash(git:*)'],
      'list-at-margin': ['a', 'b'],
      flow: ['x', 'y, z', 3],
      items: [{ name: 'one', size: 1 }],
      literal: 'line 1\nline 2\n',
      folded: 'one two',
      description: 'a long description wrapped',
    });
  });

  test('body, BOM and CRLF; no block means undefined', () => {
    expect(parseFrontmatter('\ufeff---\r\nname: a\r\n---\r\n# Body')).toEqual({
      frontmatter: { name: 'a' },
      body: '# Body',
    });
    expect(parseFrontmatter('# no frontmatter')).toBeUndefined();
    expect(front('')).toEqual({});
  });

  test.each([
    ['an alias', 'name: *ref', /aliases/],
    ['a duplicate key', 'name: a\nname: b', /duplicate key "name"/],
    ['a top-level list', '- a', /mapping/],
    ['a tab indent', 'a:\n\tb: 1', /tabs/],
    ['an unterminated string', 'name: "open', /unterminated/],
    ['a flow mapping', 'm: {a: 1}', /flow mappings/],
  ])('refuses %s', (_what, yaml, message) => {
    expect(() => front(yaml)).toThrow(message);
  });
});
