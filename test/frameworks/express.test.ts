/**
 * Express 5 with `mcpExpress` (keel-mcp/express): a real Express server on 127.0.0.1:0 passes the
 * framework scenario with the route mounted bare, and again behind `express.json()` and
 * `express.raw()` (which read the stream first: the adapter uses the parsed `req.body`).
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { describe, expect, test } from 'vitest';
import { mcpExpress } from 'keel-mcp/express';
import { McpServer } from 'keel-mcp/server';
import { createHttpHandler, type HttpHandler } from 'keel-mcp/http';
import { useProcessGuard, within } from '../helpers/guard.js';
import { AUTH, frameworkScenario, type Mounted } from './support/scenario.js';

useProcessGuard();

/** An auth middleware's result on `req.auth`, which `mcpExpress` passes on by default. */
function auth(app: ReturnType<typeof express>): void {
  app.use((req, _res, next) => {
    (req as { auth?: unknown }).auth = AUTH;
    next();
  });
}

async function listen(app: ReturnType<typeof express>): Promise<Mounted> {
  const server = await new Promise<Server>((resolve, reject) => {
    const started: Server = app.listen(0, '127.0.0.1', (error) => (error ? reject(error) : resolve(started)));
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

describe('mounted without a body parser', () => {
  frameworkScenario((handler: HttpHandler) => {
    const app = express();
    auth(app);
    app.all('/mcp', mcpExpress(handler));
    return listen(app);
  });
});

describe("mounted behind express.raw({ type: 'application/json' }) (req.body is a Buffer)", () => {
  frameworkScenario((handler: HttpHandler) => {
    const app = express();
    app.use(express.raw({ type: 'application/json' }));
    auth(app);
    app.all('/mcp', mcpExpress(handler));
    return listen(app);
  });
});

describe('mounted behind express.json()', () => {
  frameworkScenario((handler: HttpHandler) => {
    const app = express();
    app.use(express.json());
    auth(app);
    app.all('/mcp', mcpExpress(handler));
    return listen(app);
  });

  test('Keel’s body limit applies to the parsed body: 413 with a JSON-RPC error, not a parse error', async () => {
    const server = new McpServer({ name: 'limits', version: '1' });
    const handler = createHttpHandler(server, { maxBodyBytes: 64 });
    const app = express();
    app.use(express.json());
    app.all('/mcp', mcpExpress(handler));
    const mounted = await listen(app);
    try {
      // Streamed (chunked, no Content-Length): only the bytes can tell Keel the size, and the
      // parser has read them all before Keel runs.
      const text = JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'ping',
        params: { pad: 'x'.repeat(200) },
      });
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(text));
          controller.close();
        },
      });
      const response = await within(
        fetch(mounted.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body,
          duplex: 'half',
        } as RequestInit),
      );
      expect(response.status).toBe(413);
      expect(await response.json()).toEqual({
        jsonrpc: '2.0',
        error: { code: -32600, message: 'Request body larger than 64 bytes' },
      });
    } finally {
      await handler.close({ deadlineMs: 1_000 });
      await mounted.close();
    }
  });
});
