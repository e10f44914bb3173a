/**
 * A connected McpServer + low-level Client over the in-memory pair, disposed after each test.
 */
import { Client, type ClientOptions } from 'keel-mcp/client';
import type { JsonObject, JsonRpcMessage, RequestId, SendOptions } from 'keel-mcp/core';
import type { McpServer, ServerSession } from 'keel-mcp/server';
import { createRecordingPair, type RecordingTransport } from '../helpers/recording-transport.js';
import { within } from '../helpers/guard.js';

export interface Connected {
  client: Client;
  session: ServerSession;
  clientSide: RecordingTransport;
  serverSide: RecordingTransport;
  /** Everything the server sent, with the `relatedRequestId` routing hint it gave the transport. */
  routes: { message: JsonRpcMessage; relatedRequestId: RequestId | undefined }[];
  /** Notifications the client received, in order. */
  notifications: { method: string; params: JsonObject }[];
  /** Resolve when the client has seen a notification matching `method` (bounded). */
  nextNotification(method: string, ms?: number): Promise<JsonObject>;
  close(): Promise<void>;
}

/** Connect a fresh low-level client to `server`. */
export async function connect(server: McpServer, options: ClientOptions = {}): Promise<Connected> {
  const [clientSide, serverSide] = createRecordingPair();
  const routes: Connected['routes'] = [];
  const send = serverSide.send.bind(serverSide);
  serverSide.send = (message: JsonRpcMessage, options?: SendOptions) => {
    routes.push({ message, relatedRequestId: options?.relatedRequestId });
    return send(message);
  };
  const session = server.connect(serverSide);
  const client = new Client({ name: 'test-client', version: '1.0.0' }, options);
  const notifications: { method: string; params: JsonObject }[] = [];
  const waiters: { method: string; resolve: (p: JsonObject) => void }[] = [];
  const record = (method: string) => (params: JsonObject) => {
    notifications.push({ method, params });
    const index = waiters.findIndex((w) => w.method === method);
    if (index >= 0) waiters.splice(index, 1)[0]!.resolve(params);
  };
  for (const method of [
    'notifications/message',
    'notifications/progress',
    'notifications/tools/list_changed',
    'notifications/resources/list_changed',
    'notifications/prompts/list_changed',
    'notifications/resources/updated',
    'notifications/elicitation/complete',
  ]) {
    client.setNotificationHandler(method, record(method));
  }
  await within(client.connect(clientSide), 5_000, 'client.connect');
  // The server marks the session initialized when it reads `notifications/initialized`.
  await within(new Promise<void>((resolve) => session.onInitialized(resolve)), 5_000, 'initialized');
  return {
    client,
    session,
    clientSide,
    serverSide,
    routes,
    notifications,
    nextNotification(method, ms = 5_000) {
      return within(new Promise<JsonObject>((resolve) => waiters.push({ method, resolve })), ms, method);
    },
    async close() {
      await client.close();
      await within(session.closed, 5_000, 'session.closed');
    },
  };
}
