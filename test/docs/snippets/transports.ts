/**
 * docs/transports.md snippets. See server-tools.ts for how the regions are used. The stdio and
 * HTTP snippets are only typechecked (they bind process streams and ports); the memory one runs.
 */
import { createServer } from 'node:http';
import { McpClient } from 'keel-mcp/client';
import type { McpServer } from 'keel-mcp/server';
import { serveHttp, toNodeListener } from 'keel-mcp/node';
import {
  createHttpHandler,
  InMemoryEventStore,
  SessionExpiredError,
  StreamableHttpClientTransport,
} from 'keel-mcp/http';
import { createMemoryPair } from 'keel-mcp/memory';
import { serveStdio, StdioClientTransport } from 'keel-mcp/stdio';

/** Stand-ins for the user code the snippets call. */
export const getToken = (): string => 'token';

export async function memory(server: McpServer): Promise<McpClient> {
  // #region memory
  const [clientSide, serverSide] = createMemoryPair();
  const session = server.connect(serverSide); // session.closed settles after teardown
  const client = await McpClient.connect(clientSide);
  // #endregion
  void session;
  return client;
}

export async function stdioServer(server: McpServer): Promise<void> {
  // #region stdio-server
  // Default: stdin EOF aborts in-flight handlers at once and writes nothing more for them.
  await serveStdio(server);

  // Batch use (`node server.js < requests.jsonl > responses.jsonl`): let accepted handlers
  // finish for up to 30 s after EOF, then abort what is left.
  await serveStdio(server, { drainMs: 30_000, signal: AbortSignal.timeout(3_600_000) });
  // #endregion
}

export async function stdioClient(): Promise<McpClient> {
  // #region stdio-client
  const transport = new StdioClientTransport({
    command: 'node',
    args: ['server.js'],
    env: { API_KEY: 'secret' }, // added to a safe subset of process.env (inheritEnv: true for all)
    cwd: '/srv/mcp',
    stderr: 'pipe', // or 'inherit' (default) / 'ignore'
    onStderr: (text) => process.stderr.write(`[server] ${text}`),
    closeGraceMs: 2_000, // close(): stdin EOF, wait, SIGTERM, wait killGraceMs, SIGKILL
  });
  const client = await McpClient.connect(transport);
  // If the child exits, pending calls reject with ConnectionClosedError (cause: exit code/signal).
  // #endregion
  return client;
}

export async function httpServer(server: McpServer): Promise<void> {
  // #region http-server
  // One call on Node: http://127.0.0.1:3000/mcp
  const serving = await serveHttp(server, { port: 3000, host: '127.0.0.1', path: '/mcp' });
  process.once('SIGTERM', () => void serving.close({ deadlineMs: 5_000 }));

  // Or the web-standard handler, (Request) => Promise<Response>, anywhere:
  const handler = createHttpHandler(server, {
    sessions: { idleMs: 10 * 60_000, max: 1_000 }, // or `false` for stateless mode
    eventStore: new InMemoryEventStore({ maxEventsPerStream: 500 }), // resumability (default on)
    allowedHosts: ['mcp.example.com'], // DNS-rebinding protection (default: loopback names)
    allowedOrigins: ['https://app.example.com'],
    onSessionEnd: (id, reason) => console.error(`session ${id} ended: ${reason}`),
  });
  createServer(toNodeListener(handler)).listen(8080, '127.0.0.1');
  // #endregion
}

export async function httpClient(): Promise<McpClient> {
  // #region http-client
  const transport = new StreamableHttpClientTransport('https://mcp.example.com/mcp', {
    headers: () => ({ Authorization: `Bearer ${getToken()}` }), // per request
    reconnect: { maxAttempts: 5, initialDelayMs: 500 }, // resuming dropped SSE streams
  });
  transport.onsessionexpired = (error: SessionExpiredError) => console.error(error.message);
  const client = await McpClient.connect(transport);
  await client.close(); // also DELETEs the session (bounded)
  // #endregion
  return client;
}
