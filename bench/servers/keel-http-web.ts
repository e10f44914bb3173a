/**
 * Keel's Streamable HTTP bench server with sessions, served through web `Request`/`Response`
 * objects instead of the `node:http` fast path (`npm run bench:http-web`); see keel-web-bridge.ts.
 */
import { createHttpHandler } from 'keel-mcp/http';
import { BENCH_SESSION_LIMITS, stopOnSignal } from './keel-http-serve.js';
import { createBenchServer } from './keel-tools.js';
import { serveViaWebBridge } from './keel-web-bridge.js';

const handler = createHttpHandler(createBenchServer(), { sessions: BENCH_SESSION_LIMITS });
const server = await serveViaWebBridge(
  (request, extra) => handler(request, extra),
  Number(process.env.PORT ?? 3000),
);
stopOnSignal(async () => {
  await handler.close({ deadlineMs: 1_000 });
  const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeAllConnections();
  await stopped;
});
