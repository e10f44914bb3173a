/**
 * A low-level server whose `tools/call` handlers are scripted per test, served over a raw pair.
 */
import type { RequestContext, JsonObject, Logger } from 'keel-mcp/core';
import { Server, type ServerSession } from 'keel-mcp/server';
import { rawPair, type RawPeer } from './raw-peer.js';
import type { RecordingTransport } from '../../helpers/recording-transport.js';

export type Tool = (args: JsonObject, ctx: RequestContext) => JsonObject | Promise<JsonObject>;

export interface ToolServer {
  server: Server;
  session: ServerSession;
  peer: RawPeer;
  serverSide: RecordingTransport;
  peerSide: RecordingTransport;
  logs: { level: 'debug' | 'error'; message: string; detail?: unknown }[];
}

/** A text result, as tools return them. */
export const text = (value: string): JsonObject => ({ content: [{ type: 'text', text: value }] });

/** Serve `tools` over a raw pair and run the legacy handshake. */
export async function toolServer(
  tools: Record<string, Tool>,
  options: { handshake?: boolean } = {},
): Promise<ToolServer> {
  const logs: ToolServer['logs'] = [];
  const logger: Logger = {
    debug: (message, detail) => void logs.push({ level: 'debug', message, detail }),
    error: (message, detail) => void logs.push({ level: 'error', message, detail }),
  };
  const server = new Server(
    { name: 'tools', version: '1' },
    { capabilities: { tools: {} }, connection: { logger } },
  );
  server.setRequestHandler('tools/call', (params, ctx) => {
    const tool = tools[params.name as string];
    if (!tool) throw new Error(`no tool ${String(params.name)}`);
    return tool((params.arguments as JsonObject | undefined) ?? {}, ctx);
  });
  const { peer, peerSide, serverSide } = rawPair();
  peer.nextId = 100; // keep small ids free for the tests
  const session = server.connect(serverSide);
  if (options.handshake ?? true) await peer.initialize();
  return { server, session, peer, serverSide, peerSide, logs };
}

/** `tools/call` params. */
export const call = (name: string, args: JsonObject = {}): JsonObject => ({ name, arguments: args });
