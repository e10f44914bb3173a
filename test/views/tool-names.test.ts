/**
 * Issue 26: tool names against the spec's rules (SEP-986; server/tools "Tool Names" in 2025-11-25
 * and 2026-07-28). Every rule there is a SHOULD, so a name that breaks one is registered and
 * reported once; a name that cannot work at all throws at registration.
 */
import { expect, test } from 'vitest';
import { McpServer, warnToolNameToConsole, type ToolNameWarning } from 'keel-mcp/server';

function server(warnings: ToolNameWarning[]): McpServer {
  return new McpServer(
    { name: 'names', version: '1.0.0' },
    { onToolNameWarning: (warning) => void warnings.push(warning) },
  );
}

test('issue 26 tool names: the spec examples and every allowed character pass silently', () => {
  const warnings: ToolNameWarning[] = [];
  const s = server(warnings);
  for (const name of ['getUser', 'DATA_EXPORT_v2', 'admin.tools.list', 'a', 'x'.repeat(128), 'Az09_-.'])
    s.tool(name, { description: name }, () => 'ok');
  // Case-sensitive: two names differing only in case are two tools.
  s.tool('GETUSER', { description: 'upper' }, () => 'ok');
  expect(warnings).toEqual([]);
});

test('issue 26 tool names: a SHOULD broken is registered and reported once per name', () => {
  const warnings: ToolNameWarning[] = [];
  const s = server(warnings);
  const long = 'y'.repeat(129);
  s.tool('get user', { description: 'space' }, () => 'ok');
  s.tool('a,b', { description: 'comma' }, () => 'ok');
  s.tool('user/profile', { description: 'slash' }, () => 'ok');
  s.tool(long, { description: 'long' }, () => 'ok');
  s.tool('grüße', { description: 'non-ASCII' }, () => 'ok').remove();
  s.tool('grüße', { description: 'again' }, () => 'ok');
  expect(warnings.map((w) => [w.name, w.problems])).toEqual([
    ['get user', ['has characters outside A-Z a-z 0-9 _ - . (space)']],
    ['a,b', ['has characters outside A-Z a-z 0-9 _ - . (comma)']],
    ['user/profile', ['has characters outside A-Z a-z 0-9 _ - . ("/")']],
    [long, ['is 129 characters long (at most 128)']],
    ['grüße', ['has characters outside A-Z a-z 0-9 _ - . ("ü", "ß")']],
  ]);
  expect(warnings[0]!.message).toBe(
    'Tool name "get user" has characters outside A-Z a-z 0-9 _ - . (space); the MCP spec says tool names SHOULD be 1-128 of A-Z a-z 0-9 _ - . (SEP-986). Registered anyway.',
  );
});

test('issue 26 tool names: names that cannot work throw at registration, and nothing is registered', () => {
  const warnings: ToolNameWarning[] = [];
  const s = server(warnings);
  expect(() => s.tool('', { description: 'empty' }, () => 'ok')).toThrow('A tool needs a non-empty name');
  expect(() => s.tool(42 as never, { description: 'number' }, () => 'ok')).toThrow(
    'A tool needs a non-empty name',
  );
  expect(() => s.tool('bad\uD800', { description: 'lone surrogate' }, () => 'ok')).toThrow(
    /not well-formed Unicode \(a lone surrogate\)/,
  );
  s.tool('taken', { description: 'first' }, () => 'ok');
  expect(() => s.tool('taken', { description: 'second' }, () => 'ok')).toThrow(
    'A tool named "taken" is already registered',
  );
  // A pair is fine (one code point), though outside the recommended characters.
  s.tool('smile\uD83D\uDE00', { description: 'emoji' }, () => 'ok');
  expect(warnings.map((w) => w.name)).toEqual(['smile\uD83D\uDE00']);
  expect(s.capabilities.tools).toBeDefined();
});

test('issue 26 tool names: the default hook is one console.warn line; undefined is silent; a throwing hook is ignored', () => {
  const lines: unknown[][] = [];
  const original = console.warn;
  console.warn = (...args: unknown[]) => void lines.push(args);
  try {
    const byDefault = new McpServer({ name: 'names', version: '1.0.0' });
    byDefault.tool('a b', { description: 'x' }, () => 'ok');
    byDefault.tool('a b c', { description: 'y' }, () => 'ok');
    expect(lines).toHaveLength(2);
    expect(String(lines[0]![0])).toContain('Tool name "a b"');
    const silent = new McpServer({ name: 'names', version: '1.0.0' }, { onToolNameWarning: undefined });
    silent.tool('c d', { description: 'x' }, () => 'ok');
    expect(lines).toHaveLength(2);
    expect(warnToolNameToConsole).toBeTypeOf('function');
  } finally {
    console.warn = original;
  }
  const throwing = new McpServer(
    { name: 'names', version: '1.0.0' },
    {
      onToolNameWarning: () => {
        throw new Error('hook broke');
      },
    },
  );
  expect(throwing.tool('e f', { description: 'x' }, () => 'ok').name).toBe('e f');
});
