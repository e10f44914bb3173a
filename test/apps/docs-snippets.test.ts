/**
 * Issue 27 apps: the examples of docs/apps.md (test/docs/snippets/apps.ts) do what the guide says,
 * in both eras.
 */
import { describe, expect, test } from 'vitest';
import { createMemoryPair } from 'keel-mcp/memory';
import { hostSide, weatherServer } from '../docs/snippets/apps.js';
import { useProcessGuard, within } from '../helpers/guard.js';

useProcessGuard();

describe.each(['legacy', 'modern'] as const)('%s era', (era) => {
  test('issue 27 apps: the guide’s server and host find the app, hide the app-only tool from the model', async () => {
    const server = weatherServer('<p>forecast</p>');
    const [clientSide, serverSide] = createMemoryPair();
    const session = server.connect(serverSide);
    const { client, forModel, apps } = await hostSide(clientSide, era);
    try {
      expect(forModel).toEqual(['forecast']);
      expect(apps).toEqual([
        {
          uri: 'ui://weather/forecast.html',
          html: '<p>forecast</p>',
          ui: { csp: { connectDomains: ['https://api.example.com'] }, prefersBorder: true },
        },
      ]);
      expect(await client.callTool('refresh', {})).toMatchObject({
        content: [{ type: 'text', text: 'refreshed' }],
      });
      expect(await client.callTool('forecast', { city: 'Oslo' })).toMatchObject({
        structuredContent: { city: 'Oslo', tempC: 21 },
      });
    } finally {
      await client.close();
      await within(session.closed, 5_000, 'session.closed');
    }
  });
});
