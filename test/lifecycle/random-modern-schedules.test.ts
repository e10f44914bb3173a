/**
 * Randomized schedules of 2026-07-28 requests over Keel's HTTP handler (in process), the modern
 * counterpart of random-schedules.test.ts (which drives the engine with legacy-style cancels):
 * - a client closing its response stream races the handler's result: for every request exactly one
 *   of "its result was sent (and a client that kept reading got it)" or "its handler was aborted as
 *   a peer cancel and nothing (no response, no further progress) was sent for it";
 * - `input_required` retries whose `requestState` is tampered, expired, bound to another request,
 *   or signed with another key: always `-32602` (HTTP 400) and the handler never runs on them.
 * Bounded: KEEL_FC_RUNS (default 300 and 200 runs), each run bounded in time.
 */
import fc from 'fast-check';
import { expect, test } from 'vitest';
import type { JsonObject } from 'keel-mcp/core';
import { McpServer } from 'keel-mcp/server';
import { createHttpHandler } from 'keel-mcp/http';
import { useProcessGuard, within } from '../helpers/guard.js';
import { meta, MODERN } from '../modern/harness.js';
import { ModernSchedule, modernStepArb, type LogEntry } from './support/modern-schedule.js';

useProcessGuard();

const RUNS = process.env.KEEL_FC_RUNS === undefined ? undefined : Number(process.env.KEEL_FC_RUNS);
const SEED = process.env.KEEL_FC_SEED === undefined ? undefined : Number(process.env.KEEL_FC_SEED);

/** How often each outcome occurred over all runs: shows the runs reach both sides of the race. */
const outcomes = new Map<string, number>();

function checkCall(s: ModernSchedule, i: number, closed: boolean, received: string | undefined): void {
  const entries = s.about(i);
  const where = `request ${i}${closed ? ' (stream closed)' : ''}`;
  const at = (type: LogEntry['type']): number[] =>
    entries.flatMap((entry, index) => (entry.type === type ? [index] : []));
  const responses = entries.filter((e) => e.type === 'sent' && !('method' in e.message));
  const aborts = entries.filter((e) => e.type === 'aborted');
  expect(responses.length, `${where}: responses sent`).toBeLessThanOrEqual(1);
  expect(aborts.length, `${where}: aborts`).toBeLessThanOrEqual(1);
  if (aborts.length === 1) {
    expect(aborts[0], `${where}: abort reason`).toMatchObject({ reason: 'CancelledByPeerError' });
    expect(closed, `${where}: aborted without a stream close`).toBe(true);
    const abortedAt = at('aborted')[0]!;
    const sentAfter = entries.filter((e, index) => index > abortedAt && e.type === 'sent');
    expect(sentAfter, `${where}: sent after its abort`).toEqual([]);
  }
  if (at('started').length === 1) {
    // Exactly one of: the result was sent, or the handler was aborted (and nothing was sent).
    expect(responses.length + aborts.length, `${where}: result xor abort`).toBe(1);
  } else {
    expect(closed, `${where}: never started although its client kept reading`).toBe(true);
    expect(responses, `${where}: a response without a handler`).toEqual([]);
  }
  if (!closed) {
    expect(aborts, `${where}: aborted although its stream stayed open`).toEqual([]);
    expect(received, `${where}: the client got its result`).toContain(`done ${i}`);
  }
  if (received?.includes(`done ${i}`)) expect(responses, `${where}: received but not sent`).toHaveLength(1);
  const outcome = !closed
    ? 'kept reading'
    : aborts.length === 1
      ? 'closed: aborted'
      : responses.length === 1
        ? 'closed: result sent first'
        : 'closed: never started';
  outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
}

test('modern: a closed stream racing the result gives the result or the abort, never both, never neither', async () => {
  let runs = 0;
  const numRuns = RUNS ?? 300;
  await fc.assert(
    fc.asyncProperty(fc.array(modernStepArb, { minLength: 1, maxLength: 30, size: 'max' }), async (steps) => {
      runs++;
      const s = new ModernSchedule();
      try {
        await within(s.run(steps), 2_000, 'the schedule');
        for (const call of s.calls) checkCall(s, call.i, call.closed, await call.received);
        // Every per-request connection ended with its request.
        expect(s.handler.sessionCount).toBe(0);
      } finally {
        await within(s.handler.close({ deadlineMs: 1_000 }), 2_000, 'handler close');
      }
    }),
    { numRuns, ...(SEED !== undefined && { seed: SEED }) },
  );
  expect(runs).toBeGreaterThanOrEqual(numRuns);
  if (process.env.KEEL_FC_STATS) console.log(outcomes);
  // Both sides of the race were reached (not a property that held only because nothing raced).
  if (numRuns >= 100) {
    expect(outcomes.get('closed: aborted') ?? 0).toBeGreaterThan(0);
    expect(outcomes.get('closed: result sent first') ?? 0).toBeGreaterThan(0);
  }
}, 120_000);

type Mutation =
  | 'none'
  | 'flip'
  | 'truncate'
  | 'append'
  | 'otherArguments'
  | 'otherTool'
  | 'expired'
  | 'otherKey'
  | 'sameKeyIdOtherSecret';

const KEY = { id: 'k1', secret: 'a'.repeat(32) };
const TTL_MS = 60_000;
const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** A server whose `ask` tools elicit one answer; `runs` records every run and the answer it saw. */
function askServer(secret: { id: string; secret: string }, clock: { now: number }) {
  const runs: { tool: string; answer: unknown }[] = [];
  const server = new McpServer(
    { name: 'ask', version: '1' },
    { onerror: undefined, requestState: { keys: [secret], ttlMs: TTL_MS, now: () => clock.now } },
  );
  for (const tool of ['ask', 'ask_other']) {
    server.tool(
      tool,
      { description: 'Asks one question', input: { type: 'object', properties: { n: { type: 'integer' } } } },
      async (_args, ctx) => {
        const run = { tool, answer: undefined as unknown };
        runs.push(run);
        const answer = await ctx.elicit(
          { message: 'Go?', schema: { type: 'object', properties: { go: { type: 'boolean' } } } },
          { inputKey: 'go' },
        );
        run.answer = answer;
        return `answered ${JSON.stringify(answer.content ?? null)}`;
      },
    );
  }
  return { handler: createHttpHandler(server), runs };
}

function post(handler: ReturnType<typeof createHttpHandler>, tool: string, params: JsonObject) {
  const body = {
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: {
      name: tool,
      ...params,
      _meta: meta({ 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } }),
    },
  };
  return handler(
    new Request('http://127.0.0.1/mcp', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': MODERN,
        'mcp-method': 'tools/call',
        'mcp-name': tool,
      },
      body: JSON.stringify(body),
    }),
  );
}

test('modern: input_required retries with tampered, expired or foreign state are -32602 and never run the handler', async () => {
  let runs = 0;
  const numRuns = RUNS ?? 200;
  const mutations: Mutation[] = [
    'none',
    'flip',
    'truncate',
    'append',
    'otherArguments',
    'otherTool',
    'expired',
    'otherKey',
    'sameKeyIdOtherSecret',
  ];
  const tried = new Set<Mutation>();
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom(...mutations),
      fc.nat(),
      fc.nat({ max: 63 }),
      fc.integer({ min: 0, max: 1_000 }),
      async (mutation, position, replacement, n) => {
        runs++;
        tried.add(mutation);
        const clock = { now: 1_700_000_000_000 };
        const { handler, runs: handlerRuns } = askServer(KEY, clock);
        // otherKey, sameKeyIdOtherSecret: the retry goes to another deployment, whose runs count too.
        let retryServer: ReturnType<typeof askServer> | undefined;
        try {
          const first = (await (await post(handler, 'ask', { arguments: { n } })).json()) as JsonObject;
          const round = first.result as JsonObject;
          expect(round.resultType).toBe('input_required');
          let state = round.requestState as string;
          let tool = 'ask';
          let args: JsonObject = { n };

          if (mutation === 'flip') {
            const index = position % state.length;
            const swapped =
              BASE64URL[replacement]! === state[index]
                ? BASE64URL[(replacement + 1) % 64]!
                : BASE64URL[replacement]!;
            state = state.slice(0, index) + swapped + state.slice(index + 1);
          } else if (mutation === 'truncate') state = state.slice(0, position % state.length);
          else if (mutation === 'append') state += BASE64URL[replacement]!;
          else if (mutation === 'otherArguments') args = { n: n + 1 };
          else if (mutation === 'otherTool') tool = 'ask_other';
          else if (mutation === 'expired') clock.now += TTL_MS + (position % 1_000);
          else if (mutation === 'otherKey')
            retryServer = askServer({ id: 'k2', secret: 'b'.repeat(32) }, clock);
          else if (mutation === 'sameKeyIdOtherSecret')
            retryServer = askServer({ id: 'k1', secret: 'b'.repeat(32) }, clock);
          const retryHandler = retryServer?.handler ?? handler;
          const retryRuns = retryServer?.runs ?? handlerRuns;
          const before = retryRuns.length;
          const retryParams = {
            arguments: args,
            requestState: state,
            inputResponses: { go: { action: 'accept', content: { go: true } } },
          };
          const retry = await post(retryHandler, tool, retryParams);
          const answer = (await retry.json()) as JsonObject;
          if (mutation === 'none') {
            expect(retry.status).toBe(200);
            expect(answer.result).toMatchObject({
              content: [{ type: 'text', text: 'answered {"go":true}' }],
            });
            return;
          }
          expect(retry.status, `${mutation}: HTTP status`).toBe(400);
          expect(answer.error, mutation).toMatchObject({ code: -32602 });
          // Checked before the handler runs: no run on the server that got the retry (issue 30
          // item 6: for a retry sent to another server, that server's runs, not the first's), so
          // no run that saw a forged answer anywhere.
          expect(retryRuns.length, `${mutation}: handler ran`).toBe(before);
          for (const runs of [handlerRuns, retryRuns])
            expect(runs.every((r) => r.answer === undefined)).toBe(true);
        } finally {
          await handler.close({ deadlineMs: 1_000 });
          await retryServer?.handler.close({ deadlineMs: 1_000 });
        }
      },
    ),
    { numRuns, ...(SEED !== undefined && { seed: SEED }) },
  );
  expect(runs).toBeGreaterThanOrEqual(numRuns);
  // Every kind of bad state was tried (with 200 runs over 9 kinds, all but certain).
  if (numRuns >= 100) expect([...tried].sort()).toEqual([...mutations].sort());
}, 120_000);
