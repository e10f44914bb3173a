/**
 * Issue 23 item 3: a second `initialize` on a connection that already completed one is refused
 * with the answer HTTP gives a live session (-32600 "Invalid Request: Server already
 * initialized"; test/http-server/second-initialize.test.ts), and the session keeps the version,
 * capabilities and client info it negotiated. Here on the in-memory transport; stdio in
 * test/stdio/second-initialize.test.ts.
 */
import { afterEach, expect, test } from 'vitest';
import { McpServer, type ServerSession } from 'keel-mcp/server';
import { useProcessGuard } from '../helpers/guard.js';
import { expectCleanWire, rawPair, type RawPeer } from '../lifecycle/support/raw-peer.js';
import type { RecordingTransport } from '../helpers/recording-transport.js';

useProcessGuard();

const REFUSED = { code: -32600, message: 'Invalid Request: Server already initialized' };
const OTHER_CLIENT = {
  protocolVersion: '2025-03-26',
  capabilities: { sampling: {} },
  clientInfo: { name: 'other', version: '2' },
};

const open: { session: ServerSession; serverSide: RecordingTransport }[] = [];
afterEach(async () => {
  for (const { session, serverSide } of open.splice(0)) {
    await session.close();
    expectCleanWire(serverSide);
  }
});

function start(): { peer: RawPeer; session: ServerSession } {
  const server = new McpServer({ name: 'once', version: '1.0.0' });
  server.tool('echo', { description: 'Echo' }, () => 'echoed');
  const { peer, serverSide } = rawPair();
  const session = server.connect(serverSide);
  open.push({ session, serverSide });
  return { peer, session };
}

test('issue 23 item 3: a second initialize is refused with -32600, as over HTTP; the session is unchanged', async () => {
  const { peer, session } = start();
  expect(await peer.initialize()).toMatchObject({ result: { protocolVersion: '2025-11-25' } });

  await peer.request('initialize', OTHER_CLIENT, 're-init');
  expect(await peer.read('the refusal')).toEqual({ jsonrpc: '2.0', id: 're-init', error: REFUSED });
  expect(session.protocolVersion).toBe('2025-11-25');
  expect(session.clientCapabilities).toEqual({ roots: {} });
  expect(session.clientInfo).toEqual({ name: 'raw', version: '1' });
  expect(session.era).toBe('legacy');

  // The connection serves on.
  await peer.request('tools/call', { name: 'echo' }, 'call');
  expect(await peer.read('the tool result')).toMatchObject({
    id: 'call',
    result: { content: [{ type: 'text', text: 'echoed' }] },
  });
});

test('an initialize that failed (bad params) negotiated nothing: the next one is accepted, the one after refused', async () => {
  const { peer, session } = start();
  await peer.request('initialize', { protocolVersion: 7 }, 'bad');
  expect(await peer.read('the bad initialize')).toMatchObject({ id: 'bad', error: { code: -32602 } });
  expect(session.protocolVersion).toBeUndefined();

  await peer.request('initialize', OTHER_CLIENT, 'good');
  expect(await peer.read('the good initialize')).toMatchObject({
    id: 'good',
    result: { protocolVersion: '2025-03-26' },
  });
  await peer.request('initialize', OTHER_CLIENT, 'again');
  expect(await peer.read('the refusal')).toEqual({ jsonrpc: '2.0', id: 'again', error: REFUSED });
  expect(session.protocolVersion).toBe('2025-03-26');
});
