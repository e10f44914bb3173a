/**
 * Guarantee 12, modern half (stream transports): abandoning a 2026-07-28 call (timeout, caller's
 * abort) cancels the round in flight on the wire exactly once, naming that round's own request
 * id, and nothing more is sent for the call.
 */
import { expect, test } from 'vitest';
import { McpClient } from 'keel-mcp/client';
import { RequestAbortedError, RequestTimeoutError, type JsonObject } from 'keel-mcp/core';
import { useProcessGuard, within } from '../helpers/guard.js';
import { discoverResult, INFO, requestsSent, useModern } from './helpers.js';

useProcessGuard();
const { raw, track } = useModern();

const ASK = {
  method: 'elicitation/create',
  params: { mode: 'form', message: 'Name?', requestedSchema: { type: 'object', properties: {} } },
};

/** tools/call: round 1 asks for input; round 2 never answers (until cancelled). */
function server(started: () => void) {
  return raw({
    'server/discover': () => discoverResult(),
    'tools/call': (params, ctx) => {
      if (params.inputResponses === undefined)
        return { resultType: 'input_required', inputRequests: { who: ASK } };
      started();
      return new Promise<JsonObject>((_resolve, reject) =>
        ctx.signal.addEventListener('abort', () => reject(new Error('cancelled')), { once: true }),
      );
    },
  });
}

function cancels(sent: { method: string }[]): unknown[] {
  return sent
    .filter((m) => m.method === 'notifications/cancelled')
    .map((m) => (m as { params?: JsonObject }).params?.requestId);
}

async function connected(started: () => void) {
  const s = server(started);
  const client = new McpClient(INFO, { elicitation: { form: () => ({ action: 'accept', content: {} }) } });
  track(() => client.close());
  await within(client.connect(s.transport));
  return { client, wire: s.transport };
}

test('a timeout in the second round cancels that round once, by its own id', async () => {
  const { client, wire } = await connected(() => undefined);
  await expect(within(client.callTool('t', {}, { timeoutMs: 100 }))).rejects.toBeInstanceOf(
    RequestTimeoutError,
  );
  const calls = requestsSent(wire).filter((r) => r.method === 'tools/call');
  expect(calls).toHaveLength(2);
  expect(cancels(wire.sent as never)).toEqual([calls[1]!.id]);
});

test("the caller's abort in the second round cancels that round once; nothing is resent", async () => {
  let started!: () => void;
  const inSecondRound = new Promise<void>((resolve) => (started = resolve));
  const { client, wire } = await connected(() => started());
  const controller = new AbortController();
  const call = client.callTool('t', {}, { signal: controller.signal });
  await within(inSecondRound);
  controller.abort(new Error('user'));
  await expect(within(call)).rejects.toBeInstanceOf(RequestAbortedError);
  const calls = requestsSent(wire).filter((r) => r.method === 'tools/call');
  expect(calls).toHaveLength(2);
  expect(cancels(wire.sent as never)).toEqual([calls[1]!.id]);
});
