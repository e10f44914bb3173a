/**
 * Review finding: a server's text reached the terminal raw, so a tool named
 * `x\x1b]0;PWNED\x07` retitled the window and an elicitation message with `\r` or CSI could
 * overwrite the URL the user was asked to open.
 */
import { expect, test } from 'vitest';
import { formFields } from '../../src/cli/form-fields.js';
import { progressText, StatusLine } from '../../src/cli/progress-line.js';
import { safeText } from '../../src/cli/safe-text.js';

test('control characters become visible escapes; newline and tab stay', () => {
  expect(safeText('x\x1b]0;PWNED\x07\x1b[31mRED')).toBe('x\\x1b]0;PWNED\\x07\\x1b[31mRED');
  expect(safeText('a\rb\u009bc\x7f')).toBe('a\\x0db\\x9bc\\x7f');
  expect(safeText('line 1\n\tline 2')).toBe('line 1\n\tline 2');
});

test('progress messages and form labels from the server are made safe', () => {
  const written: string[] = [];
  const line = new StatusLine({
    isTTY: false,
    columns: 80,
    write: (text: string) => void written.push(text),
  });
  line.progress({ progress: 1, total: 2, message: 'half\x1b[2J' });
  expect(written.join('')).toContain('half\\x1b[2J');
  expect(written.join('')).not.toContain('\x1b');
  expect(progressText({ progress: 1 }).plain).not.toContain('\x1b');
  const [field] = formFields({ type: 'object', properties: { a: { type: 'string', title: 'Name\x1b[8m' } } });
  expect(field?.label).toBe('Name\\x1b[8m');
});
