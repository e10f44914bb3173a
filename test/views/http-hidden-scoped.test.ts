/**
 * Issue 26 views over HTTP: an item hidden from a token by a declarative `visibleTo` and also
 * registered with `scopes` is "not found" for that token, like an item that does not exist; the
 * HTTP host's scope check must not answer 403 naming the scopes (that would reveal the item).
 */
import { afterEach, expect, test } from 'vitest';
import type { HttpServing } from 'keel-mcp/node';
import { McpClient } from 'keel-mcp/client';
import { StreamableHttpClientTransport } from 'keel-mcp/http';
import { McpServer } from 'keel-mcp/server';
import { serveProtected, staticAuth, tok } from '../auth-server/support.js';
import { useProcessGuard } from '../helpers/guard.js';

useProcessGuard();
let serving: HttpServing | undefined;
afterEach(async () => {
  await serving?.close({ deadlineMs: 2000 });
});
test('a hidden tool with scopes is an unknown tool for a token it is hidden from: no 403 step-up challenge', async () => {
  const server = new McpServer({ name: 'x', version: '1' }, { onerror: undefined });
  server.tool('purge', { description: 'p', visibleTo: { scopes: ['admin'] }, scopes: ['admin'] }, () => 'x');
  serving = await serveProtected(staticAuth(), {}, server);
  const challenges: unknown[] = [];
  const client = new McpClient({ name: 'c', version: '1' }, { era: 'legacy' });
  await client.connect(
    new StreamableHttpClientTransport(serving.url, {
      auth: {
        authorization: async () => `Bearer ${tok('bob', 'mcp')}`,
        challenge: async (c) => {
          challenges.push(c);
          return false;
        },
      },
    }),
  );
  await expect(client.callTool('purge', {})).rejects.toThrow('Unknown tool: purge');
  expect(challenges).toEqual([]);
  await client.close();
});
