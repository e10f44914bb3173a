/**
 * A McpServer reached over the memory transport by a raw JSON-RPC connection: the tests write the
 * 2026-07-28 `_meta` themselves, so nothing of a client's era logic is involved.
 */
import { Connection, type JsonObject, type JsonRpcMessage, type Transport } from 'keel-mcp/core';
import type { McpServer, ServerSession } from 'keel-mcp/server';
import { createMemoryPair } from 'keel-mcp/memory';

export const MODERN = '2026-07-28';

/** A valid modern `_meta`, with `extra` keys merged in. */
export function meta(extra: JsonObject = {}): JsonObject {
  return {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name: 'raw-modern', version: '1' },
    ...extra,
  };
}

export interface Raw {
  client: Connection;
  session: ServerSession;
  /** The server's side of the memory pair (tests may set `messageInfo`). */
  serverTransport: Transport;
  /** Every message the server wrote, in order. */
  written: JsonRpcMessage[];
  /** Notifications the raw client received, in order. */
  notifications: { method: string; params: JsonObject }[];
  /** Send `method` with `params` and a modern `_meta` (plus `extra` keys). */
  modern(method: string, params?: JsonObject, extra?: JsonObject): Promise<JsonObject>;
  close(): Promise<void>;
}

export function connectRaw(server: McpServer): Raw {
  const [clientSide, serverSide] = createMemoryPair();
  const written: JsonRpcMessage[] = [];
  const send = serverSide.send.bind(serverSide);
  serverSide.send = (message, options) => {
    written.push(message);
    return send(message, options);
  };
  const session = server.connect(serverSide);
  const client = new Connection(clientSide);
  const notifications: Raw['notifications'] = [];
  client.fallbackNotificationHandler = (params, _info, method) => {
    notifications.push({ method, params });
  };
  void client.start();
  return {
    client,
    session,
    serverTransport: serverSide,
    written,
    notifications,
    modern: (method, params = {}, extra = {}) =>
      client.request(method, { ...params, _meta: meta(extra) }, { timeoutMs: 5_000 }),
    close: async () => {
      await client.close();
      await session.closed;
    },
  };
}
