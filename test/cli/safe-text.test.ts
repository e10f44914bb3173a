/**
 * Review finding: a server's text reached the terminal raw, so a tool named
 * `x\x1b]0;PWNED\x07` retitled the window and an elicitation message with `\r` or CSI could
 * overwrite the URL the user was asked to open.
 */
import { expect, test } from 'vitest';
import { formFields } from '../../src/cli/form-fields.js';
import { progressText, StatusLine } from '../../src/cli/progress-line.js';
import { hasControl, safeJson, safeLine, safeName, safeText } from '../../src/cli/safe-text.js';

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

test('issue 23 item 4: one-line prose, names and values, and --json output', () => {
  expect(safeLine('Echo\r\n\tthe text\x07 and\u009b2J')).toBe('Echo the text\\x07 and\\x9b2J');
  expect(safeName('a\nb\tc\x1b')).toBe('a\\x0ab\\x09c\\x1b');
  expect([hasControl('plain text ü'), hasControl('a\tb'), hasControl('x\u0085')]).toEqual([
    false,
    true,
    true,
  ]);
  const data = { name: 'x\x1b]0;T\x07\u009b2J\x7f' };
  const json = safeJson(JSON.stringify(data, null, 2));
  // eslint-disable-next-line no-control-regex -- looking for raw controls
  expect(json).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f-\x9f]/);
  expect(JSON.parse(json)).toEqual(data); // still JSON, the data intact
});

test('issue 23 item 4: form labels and choice labels are one escaped line each', () => {
  const [text, pick, size] = formFields({
    type: 'object',
    properties: {
      text: {
        type: 'string',
        title: 'T\x1b]0;X\x07',
        description: 'line 1\n◆  Password',
        default: 'd\x1b[2J',
      },
      pick: { enum: ['a'], enumNames: ['A\r\x1b[2J'] },
      size: { oneOf: [{ const: 's', title: 'S\nfake' }] },
    },
  });
  expect(text?.label).toBe('T\\x1b]0;X\\x07: line 1 ◆  Password');
  expect(pick?.choices).toEqual([{ value: 'a', label: 'A\\x0d\\x1b[2J' }]);
  expect(size?.choices).toEqual([{ value: 's', label: 'S fake' }]);
  // The default is kept as the server sent it: the prompt decides not to pre-fill it.
  expect(text?.default).toBe('d\x1b[2J');
});

test('bidirectional controls are escaped: a URL or name cannot be shown reordered', () => {
  // "https://evil.example/\u202Egnp.txt" would display with its tail reversed.
  const url = 'https://evil.example/\u202egnp.txt\u2066x\u2069\u200f';
  expect(safeName(url)).toBe('https://evil.example/\\u{202e}gnp.txt\\u{2066}x\\u{2069}\\u{200f}');
  expect(safeText('a\u061cb')).toBe('a\\u{61c}b');
  expect(safeLine('a\u202db')).toBe('a\\u{202d}b');
  expect(hasControl('\u2067')).toBe(true);
  const json = safeJson(JSON.stringify({ u: url }));
  expect(json).not.toMatch(/[\u202a-\u202e\u2066-\u2069\u200f]/);
  expect(JSON.parse(json)).toEqual({ u: url });
});
