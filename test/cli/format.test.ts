/**
 * Output formatting, the <server> operand, headers, the progress line and the elicitation form
 * plan: pure functions of the CLI.
 */
import { describe, expect, test } from 'vitest';
import {
  formatPrompt,
  formatPromptResult,
  formatReadResult,
  formatResource,
  formatTool,
  formatToolResult,
} from '../../src/cli/format.js';
import { checkText, formFields, textValue } from '../../src/cli/form-fields.js';
import { formatDuration, parseDuration, requestLimits } from '../../src/cli/limits.js';
import { progressText, StatusLine } from '../../src/cli/progress-line.js';
import { parseHeaders, resolveTarget, splitAtDashDash } from '../../src/cli/server-target.js';
import { UsageError } from '../../src/cli/usage.js';

describe('tool results', () => {
  test('text as is; images, audio, links and resources summarized', () => {
    const text = formatToolResult({
      content: [
        { type: 'text', text: 'hello\nworld' },
        { type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgo=' },
        { type: 'audio', mimeType: 'audio/wav', data: 'AAAA' },
        { type: 'resource_link', uri: 'file:///a', name: 'a' },
        { type: 'resource', resource: { uri: 'file:///b', mimeType: 'text/plain', text: 'abc' } },
        { type: 'resource', resource: { uri: 'file:///c', blob: 'AAA=' } },
      ],
    });
    expect(text.split('\n')).toEqual([
      'hello',
      'world',
      '[image image/png, 8 bytes]',
      '[audio audio/wav, 3 bytes]',
      '[resource link file:///a (a)]',
      '[resource file:///b text/plain, 3 chars]',
      '[resource file:///c, 2 bytes]',
    ]);
  });

  test('structuredContent pretty-printed once (its JSON text mirror is not repeated)', () => {
    const structuredContent = { city: 'Oslo', tempC: 21 };
    const text = formatToolResult({
      content: [
        { type: 'text', text: JSON.stringify(structuredContent) },
        { type: 'text', text: 'extra' },
      ],
      structuredContent,
    });
    expect(text).toBe(`${JSON.stringify(structuredContent, null, 2)}\nextra`);
  });

  test('read and prompt results', () => {
    expect(
      formatReadResult({
        contents: [
          { uri: 'a://1', text: 'one' },
          { uri: 'a://2', mimeType: 'image/png', blob: 'AAAA' },
        ],
      }),
    ).toBe('one\n[blob a://2 image/png, 3 bytes]');
    expect(
      formatPromptResult({
        description: 'Plan',
        messages: [
          { role: 'user', content: { type: 'text', text: 'Plan a day' } },
          { role: 'assistant', content: { type: 'image', mimeType: 'image/png', data: '' } },
        ],
      }),
    ).toBe('# Plan\nuser: Plan a day\nassistant: [image image/png, 0 bytes]');
  });
});

describe('listings', () => {
  const forecast = {
    name: 'forecast',
    title: 'Forecast',
    description: 'Weather for a city\nmore detail',
    inputSchema: {
      type: 'object',
      properties: {
        city: { type: 'string', description: 'The city\nsecond line of the description' },
        days: { type: 'integer' },
        unit: { enum: ['C', 'F'], description: 'Celsius or\tFahrenheit' },
        v: { type: ['string', 'null'] },
        w: {},
      },
      required: ['city'],
    },
  };

  test('issue 23 item 14: a tool lists each argument with its type and the first line of its description', () => {
    expect(formatTool(forecast).split('\n')).toEqual([
      'forecast (Forecast): Weather for a city',
      '  city: string     The city',
      '  days?: integer',
      '  unit?: "C"|"F"   Celsius or Fahrenheit',
      '  v?: string|null',
      '  w?: any',
    ]);
    expect(formatTool({ name: 'bare', inputSchema: { type: 'object' } })).toBe('bare');
  });

  test('at a terminal, listing lines are cut to its width with …; a pipe gets them whole', () => {
    const tool = {
      name: 'long',
      description: 'd'.repeat(100),
      inputSchema: { properties: { a: { type: 'string', description: 'x'.repeat(100) } } },
    };
    const lines = formatTool(tool, 40).split('\n');
    expect(lines).toEqual([`long: ${'d'.repeat(32)}…`, `  a?: string  ${'x'.repeat(24)}…`]);
    expect(lines.every((line) => line.length <= 39)).toBe(true);
    expect(formatTool(tool).split('\n')[1]).toBe(`  a?: string  ${'x'.repeat(100)}`);
  });

  test('issue 23 item 4: names, titles, descriptions, types and arguments from the server are escaped', () => {
    const evil = '\x1b]0;T\x07\u009b2J';
    const shown = '\\x1b]0;T\\x07\\x9b2J';
    const listing = formatTool({
      name: `n${evil}\nfake line`,
      title: `t${evil}`,
      description: `d${evil}`,
      inputSchema: {
        properties: { [`a${evil}`]: { type: `s${evil}`, description: `x${evil}\n  fake: arg` } },
        required: [`a${evil}`],
      },
    });
    expect(listing.split('\n')).toEqual([
      `n${shown}\\x0afake line (t${shown}): d${shown}`,
      `  a${shown}: s${shown}  x${shown}`,
    ]);
    expect(formatResource({ uri: `u://${evil}`, name: `n${evil}`, mimeType: `m${evil}` })).toBe(
      `u://${shown}  n${shown} (m${shown})`,
    );
    expect(
      formatPrompt({ name: `p${evil}`, arguments: [{ name: `a${evil}`, description: `d${evil}\nmore` }] }),
    ).toBe(`p${shown}\n  a${shown}?  d${shown}`);
    expect(
      formatToolResult({
        content: [{ type: 'resource_link', uri: `u://${evil}`, name: `n\n${evil}`, mimeType: 'text/plain' }],
      }),
    ).toBe(`[resource link u://${shown} (n ${shown})]`);
    // eslint-disable-next-line no-control-regex -- looking for raw controls
    expect(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/.test(listing)).toBe(false);
  });

  test('resources, templates and prompts', () => {
    expect(formatResource({ uri: 'file:///a', name: 'a', mimeType: 'text/plain', description: 'A' })).toBe(
      'file:///a  a (text/plain): A',
    );
    expect(formatResource({ uriTemplate: 'x://{id}', name: 'x', title: 'X' })).toBe('x://{id}  X');
    expect(
      formatPrompt({
        name: 'p',
        description: 'Plan',
        arguments: [{ name: 'city', required: true, description: 'Where' }, { name: 'b' }],
      }),
    ).toBe('p: Plan\n  city  Where\n  b?');
  });
});

describe('<server>', () => {
  test('a command after --, or an http(s) URL first', () => {
    expect(splitAtDashDash(['call', 'echo', 'a=1', '--', 'node', 's.js', '--', 'x'])).toEqual({
      before: ['call', 'echo', 'a=1'],
      command: ['node', 's.js', '--', 'x'],
    });
    expect(resolveTarget(['echo', 'a=1'], ['node', 's.js'])).toEqual({
      target: { kind: 'stdio', command: 'node', args: ['s.js'] },
      rest: ['echo', 'a=1'],
    });
    const http = resolveTarget(['https://h.example/mcp', 'echo'], undefined);
    expect(http.target.kind === 'http' && http.target.url.href).toBe('https://h.example/mcp');
    expect(http.rest).toEqual(['echo']);
  });

  test('no server, a non-http URL and an empty command are usage errors', () => {
    expect(() => resolveTarget([], undefined)).toThrow(UsageError);
    expect(() => resolveTarget(['echo'], undefined)).toThrow('"echo" is not an http(s):// URL');
    expect(() => resolveTarget(['file:///x'], undefined)).toThrow(UsageError);
    expect(() => resolveTarget([], [])).toThrow('no server command after --');
  });

  test('--header values', () => {
    expect(parseHeaders(['X-Key: a: b', 'Authorization:Bearer t'])).toEqual({
      'X-Key': 'a: b',
      Authorization: 'Bearer t',
    });
    expect(() => parseHeaders(['no colon'])).toThrow(UsageError);
    expect(() => parseHeaders(['bad name: v'])).toThrow(UsageError);
  });
});

describe('progress', () => {
  test('a bar with the percentage when the total is known, the count otherwise', () => {
    expect(progressText({ progress: 1, total: 4, message: 'step' })).toEqual({
      bar: `${'█'.repeat(6)}${'░'.repeat(18)}  25% step`,
      plain: '25% step',
    });
    expect(progressText({ progress: 7 }).plain).toBe('7');
    expect(progressText({ progress: 9, total: 4 }).plain).toBe('100%');
  });

  test('on a terminal the bar is redrawn in place and lines print above it; plain lines elsewhere', () => {
    const tty: string[] = [];
    const bar = new StatusLine({ write: (t: string) => tty.push(t), isTTY: true, columns: 80 });
    bar.progress({ progress: 1, total: 2 });
    bar.print('log');
    bar.clear();
    expect(tty.join('')).toBe(
      `\r\x1b[2K${'█'.repeat(12)}${'░'.repeat(12)}  50%\r\x1b[2Klog\n${'█'.repeat(12)}${'░'.repeat(12)}  50%\r\x1b[2K`,
    );
    const plain: string[] = [];
    const lines = new StatusLine({ write: (t: string) => plain.push(t), isTTY: false });
    lines.progress({ progress: 1, total: 2 });
    lines.progress({ progress: 1, total: 2 });
    lines.progress({ progress: 2, total: 2 });
    expect(plain).toEqual(['progress 50%\n', 'progress 100%\n']);
    const quiet: string[] = [];
    new StatusLine({ write: (t: string) => quiet.push(t), isTTY: true }, false).progress({ progress: 1 });
    expect(quiet).toEqual([]);
  });

  test("issue 25: a task's status is one line redrawn in place on a terminal, a plain line per change elsewhere", () => {
    const tty: string[] = [];
    const line = new StatusLine({ write: (t: string) => tty.push(t), isTTY: true, columns: 20 });
    line.task('task abc working: a long status message');
    line.print('log');
    line.task('task abc completed');
    line.clear();
    expect(tty.join('')).toBe(
      '\r\x1b[2Ktask abc working: a\r\x1b[2Klog\ntask abc working: a\r\x1b[2Ktask abc completed\r\x1b[2K',
    );
    const plain: string[] = [];
    const lines = new StatusLine({ write: (t: string) => plain.push(t), isTTY: false });
    lines.task('task abc working');
    lines.task('task abc working');
    lines.task('task abc working: \x1b[31mred');
    expect(plain).toEqual(['task abc working\n', 'task abc working: \\x1b[31mred\n']);
  });
});

describe('elicitation form plan', () => {
  const fields = formFields({
    type: 'object',
    properties: {
      name: { type: 'string', title: 'Name', description: 'Your name', minLength: 2 },
      age: { type: 'integer', default: 30, minimum: 0 },
      color: { type: 'string', enum: ['r', 'g'], enumNames: ['Red', 'Green'] },
      size: { type: 'string', oneOf: [{ const: 's', title: 'Small' }] },
      tags: { type: 'array', items: { enum: ['a', 'b'] } },
      ok: { type: 'boolean' },
    },
    required: ['name', 'color'],
  });

  test('one field per property, in order, with kind, label, default, choices and required', () => {
    expect(fields.map((f) => [f.key, f.kind, f.label, f.required, f.default])).toEqual([
      ['name', 'string', 'Name: Your name', true, undefined],
      ['age', 'integer', 'age', false, 30],
      ['color', 'select', 'color', true, undefined],
      ['size', 'select', 'size', false, undefined],
      ['tags', 'multiselect', 'tags', false, undefined],
      ['ok', 'boolean', 'ok', false, undefined],
    ]);
    expect(fields[2]!.choices).toEqual([
      { value: 'r', label: 'Red' },
      { value: 'g', label: 'Green' },
    ]);
    expect(fields[3]!.choices).toEqual([{ value: 's', label: 'Small' }]);
  });

  test('typed text is checked and converted', () => {
    const [name, age] = fields;
    expect(checkText(name!, '')).toBe('Required');
    expect(checkText(name!, 'A')).toBe('At least 2 characters');
    expect(checkText(name!, 'Ada')).toBeUndefined();
    expect(checkText(age!, '')).toBeUndefined();
    expect(checkText(age!, '1.5')).toBe('Enter an integer');
    expect(checkText(age!, '-1')).toBe('At least 0');
    expect(checkText(age!, 'x')).toBe('Enter a number');
    expect(textValue(age!, '42')).toBe(42);
    expect(textValue(age!, '')).toBeUndefined();
    expect(textValue(name!, 'Ada')).toBe('Ada');
  });
});

describe('request limits', () => {
  test('none per request with --timeout (its deadline bounds the command) or at a terminal; the client defaults otherwise', () => {
    const none = { timeoutMs: Infinity, maxTotalTimeoutMs: Infinity };
    expect(requestLimits(true, 500)).toEqual(none);
    expect(requestLimits(false, 500)).toEqual(none);
    expect(requestLimits(true, undefined)).toEqual(none);
    expect(requestLimits(false, undefined)).toEqual({});
  });

  test('issue 23 item 11: --timeout is seconds, or a number with ms, s or m', () => {
    expect(parseDuration('30')).toBe(30_000);
    expect(parseDuration('1.5')).toBe(1_500);
    expect(parseDuration('.5')).toBe(500);
    expect(parseDuration('250ms')).toBe(250);
    expect(parseDuration('2s')).toBe(2_000);
    expect(parseDuration('2m')).toBe(120_000);
    for (const bad of ['', '0', '0ms', 'abc', '-1', '1h', '1 s', '3e3', '9999999999']) {
      expect(parseDuration(bad), bad).toBeUndefined();
    }
    expect([formatDuration(250), formatDuration(2_000), formatDuration(1_500)]).toEqual([
      '250 ms',
      '2 s',
      '1.5 s',
    ]);
  });
});
