/**
 * Issue 23 item 14: the stderr of a stdio server that fails at start was shown three times (relayed
 * as it came, inside the client's error message, and again under "last stderr lines").
 */
import { expect, test } from 'vitest';
import { errorText, failureText } from '../../src/cli/failure-text.js';
import { ConnectionClosedError } from 'keel-mcp/core';

// Shaped like the client's error for a server that exits during connect; the wording may change,
// the lines of stderr in it are what matters.
const crash = (): Error => {
  const exit = new Error(
    'The server process (node s.js) exited with code 3; its stderr ended with:\nboom\nsecond',
  );
  return new Error(`connect failed: ${exit.message}`, {
    cause: new ConnectionClosedError('Connection closed', { cause: exit }),
  });
};

test('issue 23 item 14: stderr relayed live is not repeated: the message points above', () => {
  const text = failureText('cannot connect to `node s.js`', crash(), {
    shown: ['starting', 'boom', 'second'],
    tail: ['starting', 'boom', 'second'],
  });
  expect(text).toBe(
    'keel: cannot connect to `node s.js`: connect failed: The server process (node s.js) exited with code 3; its stderr ended with: (see above)',
  );
});

test('issue 23 item 14: with --quiet the lines come once, from the message; the tail adds only lines it lacks', () => {
  const text = failureText('cannot connect to `node s.js`', crash(), {
    shown: [],
    tail: ['starting', 'boom', 'second'],
  });
  expect(text.split('\n')).toEqual([
    'keel: cannot connect to `node s.js`: connect failed: The server process (node s.js) exited with code 3; its stderr ended with:',
    '    boom',
    '    second',
    '  last stderr lines:',
    '    starting',
  ]);
  const once = (line: string) => text.split('\n').filter((l) => l.trim() === line).length;
  expect([once('boom'), once('second')]).toEqual([1, 1]);
});

test('a message without stderr in it gets the unseen tail; a message line that is not stderr stays', () => {
  expect(
    failureText('`node s.js`', new Error('Connection closed\nexit code 3'), { shown: [], tail: ['oops'] }),
  ).toBe('keel: `node s.js`: Connection closed\n    exit code 3\n  last stderr lines:\n    oops');
  expect(failureText('x', new Error('failed'), { shown: ['oops'], tail: ['oops'] })).toBe('keel: x: failed');
});

test('errorText: a cause is added when it says something new, on the first line; bare wrappers are looked through', () => {
  expect(errorText(new Error('cannot list', { cause: new Error('ECONNREFUSED') }))).toBe(
    'cannot list (ECONNREFUSED)',
  );
  expect(errorText(new Error('a\nb', { cause: new Error('why') }))).toBe('a (why)\nb');
  expect(errorText(crash())).not.toContain('Connection closed');
  expect(errorText('plain')).toBe('plain');
});

test("issue 23 item 14: the client's own 'exited during connect' message and its cause say the stderr once", () => {
  const exit = Object.assign(
    new Error('The server process (node s.js) exited with code 3; its stderr ended with:\nboom\nsecond'),
    { stderrTail: 'boom\nsecond' },
  );
  const error = new ConnectionClosedError(
    'The server process (node s.js) exited with code 3 during connect; its stderr ended with:\nboom\nsecond',
    { cause: exit },
  );
  expect(errorText(error)).toBe(error.message);
  const text = failureText('cannot connect', error, { shown: [], tail: ['boom', 'second'] });
  expect(text.split('boom').length - 1).toBe(1);
});
