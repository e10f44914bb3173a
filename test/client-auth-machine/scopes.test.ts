import { expect, test } from 'vitest';
import { unionScopes } from '../../src/client/auth/machine/scopes.js';

test('unionScopes keeps first-seen order without duplicates, undefined when empty', () => {
  expect(unionScopes('a b', undefined, 'b c')).toBe('a b c');
  expect(unionScopes(undefined, '', ' ')).toBeUndefined();
});
