/**
 * The weather example, served: the host page at http://127.0.0.1:PORT/ and the Keel server's MCP
 * endpoint at /mcp on the same origin. Open the page in a browser: the host renders the server's
 * app in a sandboxed iframe and the app calls the server through it.
 *
 *   npm run build && PORT=3010 node dist/examples/apps/demo.js
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createHttpHandler } from 'keel-mcp/http';
import { toNodeListener } from 'keel-mcp/node';
import { bundleWeatherExample } from './bundle.js';
import { weatherServer } from './weather-server.js';

/**
 * Start the example on 127.0.0.1 (`port` 0: any free port).
 *
 * @example
 * const demo = await startWeatherDemo({ port: 0 });
 * console.log(demo.url); await demo.close();
 */
export async function startWeatherDemo(
  options: { port?: number } = {},
): Promise<{ url: string; close(): Promise<void> }> {
  const { hostHtml, hostJs, appHtml } = await bundleWeatherExample();
  const handler = createHttpHandler(weatherServer(appHtml));
  const mcp = toNodeListener(handler);
  const http: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (path === '/mcp') return mcp(req, res);
    const page =
      path === '/'
        ? { type: 'text/html', body: hostHtml }
        : path === '/host.js'
          ? { type: 'text/javascript', body: hostJs }
          : undefined;
    if (page === undefined) {
      res.writeHead(404).end();
      return;
    }
    res
      .writeHead(200, { 'content-type': `${page.type}; charset=utf-8`, 'cache-control': 'no-store' })
      .end(page.body);
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    async close() {
      await handler.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const demo = await startWeatherDemo({ port: Number(process.env.PORT ?? 3010) });
  console.log(`Open ${demo.url} in a browser (Ctrl+C to stop)`);
  process.once('SIGINT', () => void demo.close());
}
