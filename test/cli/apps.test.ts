/**
 * Issue 27 apps: `keel tools` says when a tool has an MCP App and where (its ui:// resource, and
 * that `keel read` shows it); `keel read` prints the app's HTML. The CLI does not declare the
 * extension (it renders no UI), so a Keel server does not list app-only tools to it.
 */
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { formatTool } from '../../src/cli/format.js';
import { useProcessGuard } from '../helpers/guard.js';
import { requireBuiltBin, ROOT, runCli } from './helpers.js';

useProcessGuard();

const APPS = ['--', process.execPath, join(ROOT, 'test', 'cli', 'fixtures', 'apps-server.mjs')];

describe('formatTool', () => {
  test('issue 27 apps: a tool with a UI gets a line naming its ui:// resource and keel read', () => {
    const tool = {
      name: 'forecast',
      description: 'Forecast',
      inputSchema: { type: 'object', properties: { city: { type: 'string' } } },
      _meta: { ui: { resourceUri: 'ui://weather/view.html' } },
    };
    expect(formatTool(tool).split('\n')).toEqual([
      'forecast: Forecast',
      '  UI: ui://weather/view.html (MCP App; its HTML: keel read <server> ui://weather/view.html)',
      '  city?: string',
    ]);
  });

  test('issue 27 apps: the legacy flat key, app-only tools, hostile URIs and plain tools', () => {
    expect(formatTool({ name: 'a', _meta: { 'ui/resourceUri': 'ui://old' } })).toBe(
      'a\n  UI: ui://old (MCP App; its HTML: keel read <server> ui://old)',
    );
    expect(formatTool({ name: 'r', _meta: { ui: { resourceUri: 'ui://v', visibility: ['app'] } } })).toBe(
      'r\n  UI: ui://v (MCP App; its HTML: keel read <server> ui://v) (app-only: called by its UI, not by a model)',
    );
    expect(formatTool({ name: 'x', _meta: { ui: { resourceUri: 'ui://v\u001b[2J' } } })).toContain(
      'ui://v\\x1b[2J',
    );
    expect(formatTool({ name: 'h', _meta: { ui: { resourceUri: 'https://evil.example.com' } } })).toBe('h');
    expect(formatTool({ name: 'p', _meta: { other: 1 } })).toBe('p');
  });
});

describe('keel against an MCP Apps server', () => {
  beforeAll(() => requireBuiltBin());

  test('issue 27 apps: keel tools shows where the UI is; keel read prints its HTML', async () => {
    const tools = await runCli(['tools', ...APPS]);
    expect(tools.stderr).toBe('');
    expect(tools.code).toBe(0);
    expect(tools.stdout).toBe(
      'forecast: Forecast\n  UI: ui://weather/view.html (MCP App; its HTML: keel read <server> ui://weather/view.html)\n',
    );
    const read = await runCli(['read', 'ui://weather/view.html', ...APPS]);
    expect([read.code, read.stdout]).toEqual([0, '<p id="out">forecast</p>\n']);
    const resources = await runCli(['resources', ...APPS]);
    expect(resources.stdout).toBe(
      'ui://weather/view.html  Forecast view (text/html;profile=mcp-app): The forecast UI\n',
    );
  });
});
