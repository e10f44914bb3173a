/**
 * Issue 9 item 1 on the wire: the conformance fixture over stdio, a `tools/call test_elicitation`
 * with id "dup" waiting on the client, then a `ping` with the same id. The ping never runs; the
 * client gets exactly one id-null -32600 for it, and exactly one answer with id "dup" (the call's).
 */
import { join } from 'node:path';
import { beforeAll, expect, test, vi } from 'vitest';
import { useProcessGuard, within } from '../helpers/guard.js';
import {
  assertBuilt,
  CHILD_TEST_TIMEOUT_MS,
  INITIALIZE,
  INITIALIZED,
  invalidStdout,
  RawServer,
  ROOT,
  toolCall,
  useChildCleanup,
  WAIT_MS,
} from '../stdio/helpers.js';

vi.setConfig({ testTimeout: CHILD_TEST_TIMEOUT_MS });
useProcessGuard();
useChildCleanup();
beforeAll(assertBuilt);

const FIXTURE = join(ROOT, 'dist', 'examples', 'fixture-stdio.js');

test('stdio: a ping reusing the id of a tools/call waiting on elicitation is refused, never run', async () => {
  const server = new RawServer(FIXTURE);
  server.send({
    ...INITIALIZE,
    params: { ...INITIALIZE.params, capabilities: { elicitation: {} } },
  });
  await server.response('init');
  server.send(INITIALIZED);
  server.send(toolCall('dup', 'test_elicitation', { message: 'Who are you?' }));
  const elicitation = await server.waitFor((m) => m.method === 'elicitation/create', 'the elicitation');

  server.send({ jsonrpc: '2.0', id: 'dup', method: 'ping' });
  const refusal = await server.waitFor((m) => m.id === null, 'the refusal');
  expect(refusal).toEqual({
    jsonrpc: '2.0',
    id: null,
    error: { code: -32600, message: 'Request id "dup" is already in flight', data: { requestId: 'dup' } },
  });
  expect(server.responsesFor('dup')).toEqual([]); // the ping did not run

  // The first request is still served: answer its elicitation, then it answers once.
  server.send({
    jsonrpc: '2.0',
    id: elicitation.id,
    result: { action: 'accept', content: { username: 'u', email: 'e@x' } },
  });
  const answer = await server.response('dup');
  expect(answer).toHaveProperty('result');
  server.endInput();
  const exit = await within(server.exited, WAIT_MS, 'server exit');
  expect(exit).toMatchObject({ code: 0, signal: null });
  expect(server.responsesFor('dup')).toHaveLength(1);
  expect(server.responsesFor(null)).toHaveLength(1);
  expect(invalidStdout(server)).toEqual([]);
});
