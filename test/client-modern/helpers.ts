/**
 * Helpers for the 2026-07-28 client tests: a Keel McpServer reached over a recording memory pair,
 * and "raw" servers (a bare Connection with hand-written handlers) that answer the probe the way
 * a given kind of server does. Everything opened in a test is closed after it (bounded).
 */
import { afterEach } from 'vitest';
import { McpClient, type McpClientOptions, clearEraCache } from 'keel-mcp/client';
import {
  Connection,
  ErrorCode,
  McpError,
  type RequestHandler,
  type JsonObject,
  type JsonRpcMessage,
  type Transport,
} from 'keel-mcp/core';
import { McpServer } from 'keel-mcp/server';
import { within } from '../helpers/guard.js';
import { createRecordingPair, type RecordingTransport } from '../helpers/recording-transport.js';

export const INFO = { name: 'modern-test-client', version: '1.2.3' };
export const MODERN = '2026-07-28';
export const META_VERSION = 'io.modelcontextprotocol/protocolVersion';
export const META_CAPS = 'io.modelcontextprotocol/clientCapabilities';
export const META_INFO = 'io.modelcontextprotocol/clientInfo';
export const META_LOG = 'io.modelcontextprotocol/logLevel';

/** The requests (not notifications, not responses) a recording transport sent. */
export function requestsSent(
  transport: RecordingTransport,
): { id: unknown; method: string; params: JsonObject }[] {
  return transport.sent
    .filter((m): m is JsonRpcMessage & { id: unknown; method: string } => 'method' in m && 'id' in m)
    .map((m) => ({
      id: m.id,
      method: m.method,
      params: (m as { params?: JsonObject }).params ?? {},
    }));
}

export function methodsSent(transport: RecordingTransport): string[] {
  return transport.sent.filter((m) => 'method' in m).map((m) => (m as { method: string }).method);
}

/** A Keel McpServer with a few plain tools. */
export function keelServer(): McpServer {
  const server = new McpServer(
    { name: 'keel-modern', version: '9.9.9' },
    { instructions: 'Modern test server', capabilities: { logging: {} } },
  );
  server.tool(
    'echo',
    { description: 'echoes', input: { type: 'object', properties: { text: { type: 'string' } } } },
    (args) => String((args as { text?: string }).text ?? ''),
  );
  server.tool('progress', { description: 'progress then done' }, async (_args, ctx) => {
    await ctx.progress(1, 2);
    await ctx.log('info', 'half way');
    return 'done';
  });
  return server;
}

/** Call at the top level of a test file. */
export function useModern(): {
  connect: (
    server: McpServer,
    options?: McpClientOptions,
    wrap?: (t: Transport) => Transport,
  ) => Promise<{ client: McpClient; wire: RecordingTransport; serverWire: RecordingTransport }>;
  raw: (handlers: Record<string, RequestHandler>) => { transport: RecordingTransport; seen: string[] };
  track: (cleanup: () => Promise<unknown>) => void;
} {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await within(cleanup(), 5_000, 'cleanup');
    clearEraCache();
  });
  return {
    track: (cleanup) => void cleanups.push(cleanup),
    connect: async (server, options = {}, wrap = (t) => t) => {
      const [clientSide, serverSide] = createRecordingPair();
      const session = server.connect(wrap(serverSide));
      const client = new McpClient(INFO, options);
      cleanups.push(async () => {
        await client.close();
        await session.closed;
      });
      await within(client.connect(clientSide), 10_000, 'connect');
      return { client, wire: clientSide, serverWire: serverSide };
    },
    raw: (handlers) => {
      const [clientSide, serverSide] = createRecordingPair();
      const connection = new Connection(serverSide);
      const seen: string[] = [];
      connection.fallbackRequestHandler = (params, ctx) => {
        seen.push(ctx.method);
        const handler = handlers[ctx.method];
        if (!handler) throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${ctx.method}`);
        return handler(params, ctx);
      };
      void connection.start();
      cleanups.push(() => connection.close());
      return { transport: clientSide, seen };
    },
  };
}

/** An `initialize` answer of a 2025-11-25 server. */
export function initializeResult(): JsonObject {
  return {
    protocolVersion: '2025-11-25',
    capabilities: { tools: {} },
    serverInfo: { name: 'legacy-raw', version: '1' },
  };
}

/** A `server/discover` answer of a 2026-07-28 server. */
export function discoverResult(extra: JsonObject = {}): JsonObject {
  return {
    resultType: 'complete',
    supportedVersions: [MODERN],
    capabilities: { tools: {} },
    _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'modern-raw', version: '2' } },
    ttlMs: 0,
    cacheScope: 'private',
    ...extra,
  };
}
