/**
 * A McpServer reached by a raw 2025-11-25 connection over the memory transport: the handshake,
 * then plain JSON-RPC requests, so the tests see the 2025-11-25 task wire as it is.
 */
import { Connection, type JsonObject, type Transport } from 'keel-mcp/core';
import type { McpServer, ServerSession } from 'keel-mcp/server';
import { createMemoryPair } from 'keel-mcp/memory';

export const RELATED = 'io.modelcontextprotocol/related-task';

export interface LegacyRaw {
  client: Connection;
  session: ServerSession;
  initialized: JsonObject;
  notifications: { method: string; params: JsonObject }[];
  request(method: string, params?: JsonObject, signal?: AbortSignal): Promise<JsonObject>;
  close(): Promise<void>;
}

/** Connect and run the 2025-11-25 handshake (the client declares form elicitation). */
export async function connectLegacy(
  server: McpServer,
  /** The auth info each request carries (read per message). */
  authInfo?: () => JsonObject | undefined,
): Promise<LegacyRaw> {
  const [clientSide, pair] = createMemoryPair();
  const serverSide: Transport = pair;
  if (authInfo !== undefined) serverSide.messageInfo = () => ({ authInfo: authInfo() });
  const session = server.connect(serverSide);
  const client = new Connection(clientSide);
  const notifications: LegacyRaw['notifications'] = [];
  client.fallbackNotificationHandler = (params, _info, method) => {
    notifications.push({ method, params });
  };
  void client.start();
  const initialized = await client.request(
    'initialize',
    {
      protocolVersion: '2025-11-25',
      capabilities: { elicitation: { form: {} } },
      clientInfo: { name: 'raw-legacy', version: '1' },
    },
    { timeoutMs: 5_000 },
  );
  await client.notify('notifications/initialized');
  return {
    client,
    session,
    initialized,
    notifications,
    request: (method, params = {}, signal) =>
      client.request(
        method,
        params,
        signal === undefined ? { timeoutMs: 5_000 } : { timeoutMs: 5_000, signal },
      ),
    close: async () => {
      await client.close();
      await session.closed;
    },
  };
}

/** Poll `tasks/get` (bounded: 2,000 polls, one macrotask apart) until `done` holds. */
export async function waitLegacy(
  raw: LegacyRaw,
  taskId: string,
  done: (task: JsonObject) => boolean,
): Promise<JsonObject> {
  for (let i = 0; i < 2_000; i += 1) {
    const task = await raw.request('tasks/get', { taskId });
    if (done(task)) return task;
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  throw new Error(`task ${taskId} never reached the awaited state`);
}
