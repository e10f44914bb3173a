/**
 * Fastify 5 with the `mcpFastify` plugin (keel-mcp/fastify): a real Fastify server on 127.0.0.1:0
 * passes the framework scenario. The plugin's pass-through body parser stays inside its context:
 * a sibling route still gets Fastify's JSON parsing, and Keel (not Fastify) answers a malformed
 * body on the MCP route, with a JSON-RPC parse error.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { expect, test } from 'vitest';
import { mcpFastify } from 'keel-mcp/fastify';
import { McpServer } from 'keel-mcp/server';
import { createHttpHandler, type HttpHandler } from 'keel-mcp/http';
import { useProcessGuard, within } from '../helpers/guard.js';
import { AUTH, frameworkScenario, type Mounted } from './support/scenario.js';

useProcessGuard();

async function mount(handler: HttpHandler, extra?: (app: FastifyInstance) => void): Promise<Mounted> {
  // As the other frameworks' tests do with closeAllConnections: close does not wait out the
  // client's keep-alive sockets (Node closes only those idle at the moment close starts).
  const app = Fastify({ forceCloseConnections: true });
  // An auth hook's result on the Fastify request, picked by the plugin's `authInfo` option.
  app.addHook('onRequest', async (request) => {
    (request as { user?: unknown }).user = AUTH;
  });
  await app.register(mcpFastify, { handler, authInfo: (request) => (request as { user?: unknown }).user });
  app.addHook('preClose', () => handler.close());
  extra?.(app);
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  return { url: `${address}/mcp`, close: () => app.close() };
}

frameworkScenario((handler) => mount(handler));

test('the plugin is encapsulated: a sibling route keeps Fastify’s JSON parser; Keel answers a malformed body', async () => {
  const handler = createHttpHandler(new McpServer({ name: 'parsers', version: '1' }));
  const mounted = await mount(handler, (app) => {
    app.post('/echo', (request) => ({ got: request.body }));
  });
  try {
    const echoed = await within(
      fetch(mounted.url.replace(/\/mcp$/, '/echo'), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"a":1}',
      }),
    );
    expect(await echoed.json()).toEqual({ got: { a: 1 } });

    const malformed = await within(
      fetch(mounted.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: '{"jsonrpc":',
      }),
    );
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
  } finally {
    await handler.close({ deadlineMs: 1_000 });
    await mounted.close();
  }
});
