/**
 * Issue 26 views: the docs/server.md snippets of per-caller views and tool-name warnings do what
 * the guide says.
 */
import { afterEach, expect, test } from 'vitest';
import { McpServer } from 'keel-mcp/server';
import { toolNameWarnings, views } from '../docs/snippets/server-views.js';
import { useProcessGuard } from '../helpers/guard.js';
import { auth, connectAs, names, type Caller } from './support.js';

useProcessGuard();

const open: Caller[] = [];
afterEach(async () => {
  for (const caller of open.splice(0)) await caller.client.close();
});

test('issue 26 views: the views snippet shows each caller its own lists', async () => {
  const server = new McpServer({ name: 'docs', version: '1.0.0' }, { onerror: undefined });
  views(server);
  const admin = await connectAs(server, 'legacy', auth('alice', 'admin'));
  const ops = await connectAs(server, 'modern', { subject: 'svc', clientId: 'ops-console', scopes: [] });
  open.push(admin, ops);
  expect(names((await admin.client.listTools()).tools)).toEqual(['purge']);
  expect(names((await ops.client.listTools()).tools)).toEqual([]);
  expect(names((await admin.client.listPrompts()).prompts)).toEqual(['triage']);
  expect(names((await ops.client.listResources()).resources)).toEqual(['ops-log']);
  expect(names((await ops.client.listResourceTemplates()).resourceTemplates)).toEqual(['beta-report']);
});

test('issue 26 tool names: the snippet warns once through the hook', () => {
  const lines: string[] = [];
  toolNameWarnings({ warn: (line) => void lines.push(line) });
  expect(lines).toEqual([
    'Tool name "get weather" has characters outside A-Z a-z 0-9 _ - . (space); the MCP spec says tool names SHOULD be 1-128 of A-Z a-z 0-9 _ - . (SEP-986). Registered anyway.',
  ]);
});
