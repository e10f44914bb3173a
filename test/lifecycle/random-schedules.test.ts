/**
 * Randomized interleavings of requests, handler outcomes, cancels (caller aborts, raw, duplicate,
 * malformed), late responses, progress, nested requests and closes from either side, checked
 * against the lifecycle contract after every run. Deterministic per step list: no timers, no I/O.
 */
import fc from 'fast-check';
import { expect, test } from 'vitest';
import {
  CancelledByPeerError,
  ConnectionClosedError,
  ContextClosedError,
  KeelError,
  McpError,
  RequestAbortedError,
  type JsonObject,
  type JsonRpcMessage,
  type RequestId,
} from 'keel-mcp/core';
import { useProcessGuard, within } from '../helpers/guard.js';
import { isResponse, type WireMessage } from './support/raw-peer.js';
import { configArb, Schedule, stepArb, type CallRecord } from './support/schedule.js';

useProcessGuard();

const NUM_RUNS = Number(process.env.KEEL_FC_RUNS ?? 1_000);
const SEED = process.env.KEEL_FC_SEED === undefined ? undefined : Number(process.env.KEEL_FC_SEED);
const CLOSES = ['closeA', 'closeB', 'eofA', 'eofB', 'final'] as const;

/** How often each outcome occurred over all runs (printed with KEEL_FC_STATS=1): shows the runs reach the races. */
const stats = new Map<string, number>();
function count(key: string): void {
  stats.set(key, (stats.get(key) ?? 0) + 1);
}
function outcomeName(call: CallRecord): string {
  const outcome = call.outcomes[0];
  if (!outcome) return 'unsettled';
  if (outcome.ok) return `result:${(outcome.value as { from: string }).from}`;
  const error = outcome.value as Error;
  return error instanceof McpError ? `McpError:${error.code}` : error.name;
}

/** Messages an engine wrote on `side` (the test's injected ones left out), with their positions. */
function engineMessages(s: Schedule, sent: readonly WireMessage[]): { m: WireMessage; at: number }[] {
  return sent.flatMap((m, at) => (s.injected.has(m) ? [] : [{ m, at }]));
}

function checkWire(
  s: Schedule,
  sent: readonly JsonRpcMessage[],
  handlers: Iterable<{ id: RequestId; cancelMark?: number | undefined }>,
): void {
  const messages = engineMessages(s, sent);
  const responses = new Map<RequestId, number[]>();
  const cancels = new Map<RequestId, number>();
  for (const { m, at } of messages) {
    if (isResponse(m) && m.id !== null && m.id !== undefined)
      responses.set(m.id, [...(responses.get(m.id) ?? []), at]);
    if (m.method === 'notifications/cancelled') {
      const id = (m.params as JsonObject).requestId as RequestId;
      cancels.set(id, (cancels.get(id) ?? 0) + 1);
    }
  }
  for (const [id, at] of responses) expect(at, `responses for id ${String(id)}`).toHaveLength(1);
  for (const [id, count] of cancels) expect(count, `notifications/cancelled for id ${String(id)}`).toBe(1);
  for (const handler of handlers) {
    if (handler.cancelMark === undefined) continue;
    const late = (responses.get(handler.id) ?? []).filter((at) => at >= handler.cancelMark!);
    expect(late, `response after the peer cancelled ${String(handler.id)}`).toEqual([]);
  }
  // Progress stops with its request: none after the response or the peer's cancel.
  for (const { m, at } of messages) {
    if (m.method !== 'notifications/progress') continue;
    const token = (m.params as JsonObject).progressToken as RequestId;
    const answeredAt = responses.get(token)?.[0];
    expect(
      answeredAt === undefined || answeredAt > at,
      `progress for ${String(token)} after its response`,
    ).toBe(true);
    for (const handler of handlers) {
      if (handler.id === token && handler.cancelMark !== undefined) {
        expect(at, `progress for ${String(token)} after the cancel`).toBeLessThan(handler.cancelMark);
      }
    }
  }
  expect(s.aSide.sentAfterClose).toEqual([]);
  expect(s.bSide.sentAfterClose).toEqual([]);
}

function checkCall(s: Schedule, call: CallRecord): void {
  const where = `call ${call.index} (${call.step.kind})`;
  expect(call.outcomes, `${where} settles exactly once`).toHaveLength(1);
  expect(call.progressAfterSettle, `${where}: progress delivered after settling`).toBe(0);
  const { ok, value, seq } = call.outcomes[0]!;
  if (!call.openAtCall) {
    expect(value, `${where} made after close`).toBeInstanceOf(ConnectionClosedError);
    expect(s.idOf(call.index), `${where} made after close reached the wire`).toBeUndefined();
    return;
  }
  if (ok) {
    const result = value as { i: number; from: string };
    expect(result.i).toBe(call.index);
    // A result produced after the handler was aborted must never be delivered.
    expect(result.from, `${where} result source`).not.toBe('afterAbort');
    if (result.from === 'late') expect(s.happened(['lateResponse'], seq, call.index)).toBe(true);
    else expect(s.work.get(call.index)?.returned, `${where} result without a returning handler`).toBe(true);
    return;
  }
  if (value instanceof RequestAbortedError) {
    expect(s.happened(['abort'], seq, call.index), `${where} aborted without an abort`).toBe(true);
  } else if (value instanceof ConnectionClosedError) {
    expect(s.happened([...CLOSES], seq), `${where} closed without a close`).toBe(true);
  } else if (value instanceof McpError) {
    const handler = s.work.get(call.index);
    if (value.code === -32000)
      expect(s.happened([...CLOSES], seq), `${where}: -32000 without a close`).toBe(true);
    else if (value.code === -32601) expect(call.step.kind).toBe('unknownMethod');
    else if (value.code === 4242) expect(handler?.threw).toBe('mcp');
    else if (value.code === -32603)
      expect(handler?.threw === 'plain' || handler?.threw === 'reason').toBe(true);
    else expect.fail(`${where}: unexpected wire error ${value.code} ${value.message}`);
  } else {
    expect.fail(`${where}: settled with a foreign error ${String(value)}`);
  }
}

test(`random schedules keep the lifecycle contract (${NUM_RUNS} runs)`, async () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  let runs = 0;
  try {
    await fc.assert(
      fc.asyncProperty(
        configArb,
        fc.array(stepArb, { minLength: 1, maxLength: 40, size: 'max' }),
        async (config, steps) => {
          runs++;
          const s = new Schedule(config);
          await within(s.run(steps), 2_000, 'the schedule');
          await within(Promise.all([s.a.closed, s.b.closed]), 2_000, 'both ends closed');

          expect(unhandled, 'unhandled rejections').toEqual([]);
          expect(s.notAbortedAtClose, 'handlers left running by close').toEqual([]);
          for (const call of s.calls) checkCall(s, call);
          for (const [index, handler] of s.work)
            expect(handler.finished, `work handler ${index} finally`).toBe(true);
          for (const ask of s.asks) expect(ask.finished, `ask handler ${String(ask.id)} finally`).toBe(true);
          for (const handler of s.work.values()) {
            for (const error of handler.nestedErrors) {
              expect(error, 'nested request error type').toBeInstanceOf(KeelError);
              // A child is "aborted" only when its parent was cancelled by the peer; teardown closes it.
              if (error instanceof RequestAbortedError) {
                expect(handler.signal.reason).toBeInstanceOf(CancelledByPeerError);
                expect(error.cause).toBe(handler.signal.reason);
              }
              if (!(error instanceof McpError)) {
                expect(
                  error instanceof ConnectionClosedError ||
                    error instanceof RequestAbortedError ||
                    error instanceof ContextClosedError,
                ).toBe(true);
              }
            }
          }
          for (const call of s.calls) count(`call → ${outcomeName(call)}`);
          for (const handler of [...s.work.values(), ...s.asks]) {
            count(
              `handler aborted by ${handler.signal.aborted ? (handler.signal.reason as Error).name : 'nothing'}`,
            );
            for (const error of handler.nestedErrors) count(`nested → ${(error as Error).name}`);
          }
          checkWire(s, s.bSide.sent, s.work.values());
          checkWire(s, s.aSide.sent, s.asks);
          expect(s.a.pendingCount + s.b.pendingCount).toBe(0);
          expect(s.a.inflightCount + s.b.inflightCount).toBe(0);
        },
      ),
      { numRuns: NUM_RUNS, ...(SEED !== undefined && { seed: SEED }) },
    );
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
  expect(runs).toBeGreaterThanOrEqual(NUM_RUNS);
  if (process.env.KEEL_FC_STATS)
    console.log(
      [...stats]
        .sort()
        .map(([k, n]) => `${k}: ${n}`)
        .join('\n'),
    );
  // Issue 30 item 9: the races were reached, not a contract that held only because nothing raced.
  // Each of these occurs 20 times or more in 1,000 runs (KEEL_FC_STATS=1 shows the counts), so
  // missing one by chance is out of the question; smaller KEEL_FC_RUNS skip the check.
  if (NUM_RUNS >= 1_000) {
    const reached = [...stats.keys()];
    expect(reached).toEqual(expect.arrayContaining(RACES));
  }
}, 60_000);

/** Outcomes every default run must reach: each side of each race the contract speaks of. */
const RACES = [
  'call → result:handler', // the handler's result won
  'call → result:late', // a late response for an abandoned or closed call
  'call → RequestAbortedError', // the caller's abort won
  'call → ConnectionClosedError', // close failed the pending call
  'call → McpError:-32000', // result vs shutdown: the server answered the close (answerOnClose)
  'call → McpError:-32603', // a handler that threw
  'handler aborted by CancelledByPeerError', // the peer's cancel reached a running handler
  'handler aborted by ConnectionClosedError', // close aborted a running handler
  'nested → ContextClosedError', // a nested request made after its parent ended
  'nested → ConnectionClosedError', // a nested request failed by close
];
