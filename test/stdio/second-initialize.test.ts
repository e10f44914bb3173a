/**
 * Issue 23 item 3 over stdio: a second `initialize` gets the answer HTTP gives a live session
 * (-32600 "Invalid Request: Server already initialized"), and the connection keeps what it
 * negotiated first.
 */
import { beforeAll, expect, test, vi } from 'vitest';
import { useProcessGuard } from '../helpers/guard.js';
import {
  assertBuilt,
  CHILD_TEST_TIMEOUT_MS,
  endAndExpectCleanExit,
  fixture,
  INITIALIZE,
  INITIALIZED,
  RawServer,
  toolCall,
  useChildCleanup,
} from './helpers.js';

vi.setConfig({ testTimeout: CHILD_TEST_TIMEOUT_MS });
useProcessGuard();
useChildCleanup();
beforeAll(assertBuilt);

test('issue 23 item 3: stdio refuses a second initialize with -32600 and keeps the negotiated version', async () => {
  const server = new RawServer(fixture('tool-server.js'));
  server.send(INITIALIZE);
  expect(await server.response('init')).toMatchObject({ result: { protocolVersion: '2025-11-25' } });
  server.send(INITIALIZED);

  server.send({
    jsonrpc: '2.0',
    id: 're-init',
    method: 'initialize',
    params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'other', version: '2' } },
  });
  expect(await server.response('re-init')).toEqual({
    jsonrpc: '2.0',
    id: 're-init',
    error: { code: -32600, message: 'Invalid Request: Server already initialized' },
  });

  server.send(toolCall('s', 'session'));
  expect((await server.response('s')).result.structuredContent).toEqual({
    protocolVersion: '2025-11-25',
    clientInfo: { name: 'raw', version: '1' },
    clientCapabilities: { roots: {} },
  });
  expect(server.responsesFor('re-init')).toHaveLength(1);
  await endAndExpectCleanExit(server);
});
