/**
 * Issue 26 views: a McpServer reached by McpClients over the memory transport, each client with
 * its own caller (the auth every message of its connection carries, changeable mid-session), and
 * the messages the server wrote to it (to compare error objects byte for byte).
 */
import type { AuthInfo, JsonObject, JsonRpcMessage, Transport } from 'keel-mcp/core';
import { McpClient } from 'keel-mcp/client';
import { createMemoryPair } from 'keel-mcp/memory';
import type { McpServer, ServerSession } from 'keel-mcp/server';
import { within } from '../helpers/guard.js';

export type Era = 'legacy' | 'modern';
export const ERAS: Era[] = ['legacy', 'modern'];

export interface Caller {
  client: McpClient;
  session: ServerSession;
  /** What the server wrote on this connection, in order. */
  written: JsonRpcMessage[];
  /** The auth the next messages carry (undefined: none, as on stdio). */
  auth: AuthInfo | undefined;
  /** `list_changed` notifications received, per list. */
  changed: { tools: number; resources: number; prompts: number };
  /** `notifications/resources/updated` URIs received. */
  updated: string[];
}

export function auth(subject: string, ...scopes: string[]): AuthInfo {
  return { subject, scopes, clientId: `${subject}-app` };
}

/** Connect an McpClient speaking `era` to `server`, as `who`. */
export async function connectAs(server: McpServer, era: Era, who: AuthInfo | undefined): Promise<Caller> {
  const [clientSide, pair] = createMemoryPair();
  const serverSide: Transport = pair;
  const written: JsonRpcMessage[] = [];
  const caller = {
    written,
    auth: who,
    changed: { tools: 0, resources: 0, prompts: 0 },
    updated: [],
  } as unknown as Caller;
  serverSide.messageInfo = () => (caller.auth === undefined ? {} : { authInfo: caller.auth });
  const send = serverSide.send.bind(serverSide);
  serverSide.send = (message, options) => {
    written.push(message);
    return send(message, options);
  };
  caller.session = server.connect(serverSide);
  caller.client = new McpClient({ name: `views-${era}`, version: '1.0.0' }, { era });
  caller.client.on('toolsChanged', () => void caller.changed.tools++);
  caller.client.on('resourcesChanged', () => void caller.changed.resources++);
  caller.client.on('promptsChanged', () => void caller.changed.prompts++);
  caller.client.on('resourceUpdated', ({ uri }) => void caller.updated.push(uri));
  await within(caller.client.connect(clientSide), 5_000, 'connect');
  return caller;
}

/**
 * The error object of the server's answer to the latest request sent, as written on the wire
 * (its JSON text, without the id): what "byte-identical" compares.
 */
export function lastErrorText(caller: Caller): string {
  for (let i = caller.written.length - 1; i >= 0; i--) {
    const message = caller.written[i] as { error?: JsonObject };
    if (message.error !== undefined) return JSON.stringify(message.error);
    if ('result' in message) throw new Error(`the latest answer was a result: ${JSON.stringify(message)}`);
  }
  throw new Error('no answer written');
}

/** Send `method` raw through the client (its era's `_meta` added) and return the wire error text. */
export async function errorOf(caller: Caller, method: string, params: JsonObject): Promise<string> {
  await expectRejection(caller.client.request(method, params));
  return lastErrorText(caller);
}

async function expectRejection(promise: Promise<unknown>): Promise<void> {
  let failed = false;
  await within(
    promise.then(
      () => undefined,
      () => void (failed = true),
    ),
    5_000,
    'request',
  );
  if (!failed) throw new Error('expected the request to fail');
}

export function names(items: { name: string }[]): string[] {
  return items.map((item) => item.name);
}
