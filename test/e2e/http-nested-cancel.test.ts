/**
 * Guarantee 8 with Keel's own client over real HTTP, with and without its GET stream: when
 * `ctx.elicit` times out on the server, the cancel reaches the client on the tools/call's POST
 * stream and the client's elicitation handler is aborted. (A caller that abandons the call stops
 * reading that stream; its handlers are aborted by the client itself: see
 * test/http-server/nested-cancel.test.ts for the server's side on the wire.)
 */
import { describe, expect, test } from 'vitest';
import { McpServer } from 'keel-mcp/server';
import { useProcessGuard, within } from '../helpers/guard.js';
import { hostHttp } from './support/http-server.js';
import { connectWaitingClient, settle } from './support/probe-http.js';

useProcessGuard();

function askingServer(): McpServer {
  const server = new McpServer({ name: 'nested', version: '1.0.0' });
  const schema = { type: 'object', properties: { ok: { type: 'boolean' } } } as const;
  server.tool('ask', { description: 'Asks and waits' }, async (_args, ctx) => {
    await ctx.elicit({ message: 'Continue?', schema });
    return 'answered';
  });
  server.tool('ask_briefly', { description: 'Asks, gives up after 50 ms' }, async (_args, ctx) => {
    try {
      await ctx.elicit({ message: 'Quick?', schema }, { timeoutMs: 50 });
      return 'answered';
    } catch (error) {
      return `gave up: ${(error as Error).name}`;
    }
  });
  return server;
}

for (const openGetStream of [false, true]) {
  describe(`Keel client ${openGetStream ? 'with' : 'without'} a GET stream`, () => {
    test('an elicitation that times out on the server aborts the client handler', async () => {
      const host = await hostHttp(askingServer(), 'stateful');
      try {
        const { client, asked } = await connectWaitingClient(host.url, { openGetStream });
        if (openGetStream) await host.standaloneOpened();
        const call = settle(client.callTool('ask_briefly', {}));
        const clientHandlerSignal = await asked();
        expect(await call).toMatchObject({
          content: [{ type: 'text', text: 'gave up: RequestTimeoutError' }],
        });
        expect(clientHandlerSignal.aborted).toBe(true);
        await within(client.close());
      } finally {
        await host.close();
      }
    });
  });
}
