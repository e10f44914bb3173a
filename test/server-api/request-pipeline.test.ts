/**
 * Issue 24 point 2: a request's era is decided once, where it enters (the request pipeline), and
 * from then on one object per era decides what differs. These tests pin the decision rules on a
 * connection that follows its client (memory, as stdio), and what a low-level handler receives:
 * the request as its era presents it, never a question to answer about eras.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { Connection, McpError, type JsonObject } from 'keel-mcp/core';
import { createMemoryPair } from 'keel-mcp/memory';
import { Server, type HandlerRequest, type ServerSession } from 'keel-mcp/server';
import { useProcessGuard } from '../helpers/guard.js';

useProcessGuard();

const MODERN = '2026-07-28';
const modernMeta = (capabilities: JsonObject = {}): JsonObject => ({
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientCapabilities': capabilities,
  'io.modelcontextprotocol/clientInfo': { name: 'pipeline-test', version: '1' },
});

interface Seen {
  era: HandlerRequest['era'];
  version: string | undefined;
  capabilities: JsonObject;
}

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const item of open.splice(0)) await item.close();
});

/** A low-level server whose `x/seen` handler records what it was handed, on a raw connection. */
function setup(): { client: Connection; session: ServerSession; seen: Seen[] } {
  const server = new Server({ name: 'pipeline', version: '1' }, { onerror: undefined });
  const seen: Seen[] = [];
  server.setRequestHandler('x/seen', (_params, _ctx, _session, request) => {
    seen.push({
      era: request.era,
      version: request.protocolVersion,
      capabilities: request.clientCapabilities,
    });
    return {};
  });
  const [clientSide, serverSide] = createMemoryPair();
  const session = server.connect(serverSide);
  const client = new Connection(clientSide);
  void client.start();
  open.push({
    close: async () => {
      await client.close();
      await session.closed;
    },
  });
  return { client, session, seen };
}

const call = (client: Connection, method: string, params: JsonObject = {}) =>
  client.request(method, params, { timeoutMs: 5_000 });

async function failure(promise: Promise<unknown>): Promise<McpError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(McpError);
  return error as McpError;
}

describe('the era is decided where the request enters', () => {
  test('before any handshake a plain request is legacy, and leaves the connection undecided', async () => {
    const { client, session, seen } = setup();
    await call(client, 'x/seen');
    expect(seen).toEqual([{ era: 'legacy', version: undefined, capabilities: {} }]);
    expect(session.era).toBeUndefined();
  });

  test('a request with a 2026-07-28 _meta is modern and carries its own facts; the connection follows it', async () => {
    const { client, session, seen } = setup();
    await call(client, 'x/seen', { _meta: modernMeta({ roots: {} }) });
    await call(client, 'x/seen', { _meta: modernMeta({ sampling: {} }) });
    expect(seen).toEqual([
      { era: 'modern', version: MODERN, capabilities: { roots: {} } },
      { era: 'modern', version: MODERN, capabilities: { sampling: {} } },
    ]);
    expect(session.era).toBe('modern');
    // From then on a request without its _meta is a malformed modern one, not a legacy one.
    const error = await failure(call(client, 'x/seen'));
    expect(error.code).toBe(-32602);
    expect(seen).toHaveLength(2);
  });

  test('a plain initialize chooses the legacy era (also after modern requests); handlers then see the handshake', async () => {
    const { client, session, seen } = setup();
    await call(client, 'x/seen', { _meta: modernMeta() });
    await call(client, 'initialize', { protocolVersion: '2025-06-18', capabilities: { elicitation: {} } });
    await call(client, 'x/seen');
    expect(seen.at(-1)).toEqual({ era: 'legacy', version: '2025-06-18', capabilities: { elicitation: {} } });
    expect(session.era).toBe('legacy');
  });

  test('a connection that chose the legacy era refuses a modern request (-32600) without running a handler', async () => {
    const { client, seen } = setup();
    await call(client, 'initialize', { protocolVersion: '2025-11-25', capabilities: {} });
    const error = await failure(call(client, 'x/seen', { _meta: modernMeta() }));
    expect(error.code).toBe(-32600);
    expect(seen).toEqual([]);
  });

  test('server/discover: modern on an undecided connection, a plain method on a legacy one', async () => {
    const undecided = setup();
    const discovered = await call(undecided.client, 'server/discover', { _meta: modernMeta() });
    expect(discovered.resultType).toBe('complete');
    // Without _meta on an undecided connection it is still a (malformed) modern request.
    expect((await failure(call(setup().client, 'server/discover'))).code).toBe(-32602);
    const legacy = setup();
    await call(legacy.client, 'initialize', { protocolVersion: '2025-11-25', capabilities: {} });
    expect((await failure(call(legacy.client, 'server/discover'))).code).toBe(-32601);
  });

  test('a plain ping is answered on every connection; a modern ping is a removed method (-32601)', async () => {
    const { client } = setup();
    await call(client, 'x/seen', { _meta: modernMeta() });
    expect(await call(client, 'ping')).toEqual({});
    expect((await failure(call(client, 'ping', { _meta: modernMeta() }))).code).toBe(-32601);
  });
});
