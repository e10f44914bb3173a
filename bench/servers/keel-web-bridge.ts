/**
 * Keel's HTTP handler served through web `Request`/`Response` objects on Node: the path a
 * web-standard host (Bun, Deno, Workers, Hono) takes, against Keel's `node:http` fast path.
 *
 * `toNodeListener` recognises a handler made by `createHttpHandler` and serves it straight on the
 * Node objects. Wrapped in a plain function it is just another fetch-style handler, so every
 * request becomes a `Request` (IncomingMessage → headers, URL, body stream) and every answer a
 * `Response` copied back to the ServerResponse — Keel's generic bridge
 * (`src/adapters/node/fetch-bridge.ts`). Bun and Deno build those objects natively; on Node the
 * conversion is part of the cost measured.
 */
import { createServer, type Server } from 'node:http';
import { toNodeListener } from 'keel-mcp/node';
import type { HttpRequestExtra } from 'keel-mcp/http';

/** What the bridge calls: a web-standard handler. */
export type WebFetch = (request: Request, extra?: HttpRequestExtra) => Promise<Response>;

/**
 * Listen on `host:port` and answer every request through `fetch`, with web objects only.
 *
 * @example
 * const handler = createHttpHandler(server);
 * const node = await serveViaWebBridge((request) => handler(request), 0);
 */
export async function serveViaWebBridge(fetch: WebFetch, port: number, host = '127.0.0.1'): Promise<Server> {
  // A fresh arrow function hides any fast-path marker the handler may carry.
  const server = createServer(toNodeListener((request, extra) => fetch(request, extra)));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
}
