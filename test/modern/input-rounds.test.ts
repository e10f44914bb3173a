/**
 * Issue 10: the multi round-trip back-channel. Plain functions stand in for handlers; each "call"
 * opens an InputRounds for the request params, as the modern pipeline does per request, and the
 * test plays the client: it answers inputRequests and retries with the echoed requestState.
 */
import { describe, expect, test, vi } from 'vitest';
import { ContextClosedError, ErrorCode, McpError, RequestAbortedError, type JsonObject } from 'keel-mcp/core';
import type { InputRequiredResult } from '../../src/core/types/mrtr.js';
import { elicitForm } from '../../src/server/elicit.js';
import {
  InputRounds,
  runWithRounds,
  type RoundOutcome,
  type RoundRequest,
} from '../../src/server/modern/input-rounds.js';
import {
  InputRequiredSignal,
  RequestStateError,
  SwallowedInputRoundError,
  TooManyInputRoundsError,
} from 'keel-mcp/server';
import { RequestStateCodec } from '../../src/server/modern/request-state.js';
import { useProcessGuard } from '../helpers/guard.js';

useProcessGuard();

const codec = new RequestStateCodec({ keys: ['k'.repeat(32)] });
const NAME_SCHEMA = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };
const SAMPLE = {
  messages: [{ role: 'user', content: { type: 'text', text: 'Capital of France?' } }],
  maxTokens: 100,
};
const ACCEPT_ALICE = { action: 'accept', content: { name: 'Alice' } };
const PARIS = {
  role: 'assistant',
  content: { type: 'text', text: 'Paris' },
  model: 'm',
  stopReason: 'endTurn',
};
const ROOTS = { roots: [{ uri: 'file:///test/root', name: 'Test Root' }] };

type Handler<T> = (channel: InputRounds) => Promise<T>;

function call<T>(
  params: JsonObject,
  handler: Handler<T>,
  extra: Partial<RoundRequest> & {
    maxRounds?: number;
    onSwallowedRound?: (e: SwallowedInputRoundError) => void;
  } = {},
): Promise<RoundOutcome<T>> {
  const { maxRounds, onSwallowedRound, ...request } = extra;
  return runWithRounds(
    { method: 'tools/call', params, ...request },
    { codec, maxRounds, onSwallowedRound },
    handler,
  );
}

function inputRequired<T>(outcome: RoundOutcome<T>): InputRequiredResult {
  expect(outcome.type).toBe('input_required');
  if (outcome.type !== 'input_required') throw new Error('unreachable');
  return outcome.result;
}

function complete<T>(outcome: RoundOutcome<T>): T {
  expect(outcome).toMatchObject({ type: 'complete' });
  if (outcome.type !== 'complete') throw new Error('unreachable');
  return outcome.value;
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: unknown) => e,
  );
}

const TOOL = { name: 'greet', arguments: {} };

/** The conformance tool test_input_required_result_elicitation, written as a Keel handler. */
const greet: Handler<string> = async (channel) => {
  const answer = await elicitForm(
    channel,
    { message: 'What is your name?', schema: NAME_SCHEMA },
    { inputKey: 'user_name' },
  );
  return answer.action === 'accept' ? `Hello, ${String(answer.content.name)}!` : 'Hello!';
};

describe('one input request', () => {
  test('first call → input_required with the named request and a state; retry with the answer → the result', async () => {
    let runs = 0;
    const counted: Handler<string> = (channel) => {
      runs += 1;
      return greet(channel);
    };
    const first = inputRequired(await call(TOOL, counted));
    expect(first).toEqual({
      resultType: 'input_required',
      inputRequests: {
        user_name: {
          method: 'elicitation/create',
          params: { mode: 'form', message: 'What is your name?', requestedSchema: NAME_SCHEMA },
        },
      },
      requestState: expect.any(String),
    });
    const retry = { ...TOOL, inputResponses: { user_name: ACCEPT_ALICE }, requestState: first.requestState };
    expect(complete(await call(retry, counted))).toBe('Hello, Alice!');
    expect(runs).toBe(2);
  });

  test('the pending call rejects with InputRequiredSignal, the run signal aborts, finally blocks run', async () => {
    let seen: unknown;
    let cleaned = 0;
    let signal: AbortSignal | undefined;
    const outcome = await call(TOOL, async (channel) => {
      signal = channel.signal;
      try {
        return await channel.request('roots/list', {});
      } catch (error) {
        seen = error;
        throw error;
      } finally {
        cleaned += 1;
      }
    });
    expect(inputRequired(outcome).inputRequests).toEqual({ 'roots-1': { method: 'roots/list', params: {} } });
    await vi.waitFor(() => expect(cleaned).toBe(1), { timeout: 1_000 });
    expect(seen).toBeInstanceOf(InputRequiredSignal);
    expect(signal?.aborted).toBe(true);
    expect(signal?.reason).toBe(seen);
  });

  test('answers the client sends before being asked are used (no state); unknown keys are ignored', async () => {
    const params = {
      ...TOOL,
      inputResponses: {
        user_name: ACCEPT_ALICE,
        unknown_extra_key: { action: 'accept', content: { foo: 'bar' } },
      },
    };
    expect(complete(await call(params, greet))).toBe('Hello, Alice!');
  });

  test('an answer under the wrong key: the question is asked again (not an error)', async () => {
    const params = { ...TOOL, inputResponses: { wrong_key: ACCEPT_ALICE } };
    expect(Object.keys(inputRequired(await call(params, greet)).inputRequests ?? {})).toEqual(['user_name']);
  });

  test('a retry without the answer re-asks, with a new state', async () => {
    const first = inputRequired(await call(TOOL, greet));
    const again = inputRequired(await call({ ...TOOL, requestState: first.requestState }, greet));
    expect(again.inputRequests).toEqual(first.inputRequests);
    expect(again.requestState).not.toBe(first.requestState);
  });
});

describe('several requests and several rounds', () => {
  test('Promise.all of elicitation, sampling and roots → one round with three keys; one retry completes', async () => {
    let runs = 0;
    const handler: Handler<string> = async (channel) => {
      runs += 1;
      const [name, greeting, roots] = await Promise.all([
        elicitForm(channel, { message: 'What is your name?', schema: NAME_SCHEMA }),
        channel.request('sampling/createMessage', SAMPLE),
        channel.request('roots/list', {}),
      ]);
      return `${JSON.stringify(name)} ${JSON.stringify(greeting)} ${JSON.stringify(roots)}`;
    };
    const first = inputRequired(await call(TOOL, handler));
    expect(Object.entries(first.inputRequests ?? {}).map(([k, r]) => [k, r.method])).toEqual([
      ['elicit-1', 'elicitation/create'],
      ['sample-2', 'sampling/createMessage'],
      ['roots-3', 'roots/list'],
    ]);
    const inputResponses = { 'elicit-1': ACCEPT_ALICE, 'sample-2': PARIS, 'roots-3': ROOTS };
    const value = complete(
      await call({ ...TOOL, inputResponses, requestState: first.requestState }, handler),
    );
    expect(value).toBe(
      `${JSON.stringify({ action: 'accept', content: { name: 'Alice' } })} ${JSON.stringify(PARIS)} ${JSON.stringify(ROOTS)}`,
    );
    expect(runs).toBe(2);
  });

  test('three rounds: step 2 is asked after step 1 is answered; step 1 travels in the state', async () => {
    const asked: string[] = [];
    const handler: Handler<string> = async (channel) => {
      const step1 = await elicitForm(
        channel,
        { message: 'Step 1: name?', schema: NAME_SCHEMA },
        { inputKey: 'step1' },
      );
      asked.push('step2');
      const colorSchema = { type: 'object', properties: { color: { type: 'string' } }, required: ['color'] };
      const step2 = await elicitForm(
        channel,
        { message: 'Step 2: color?', schema: colorSchema },
        { inputKey: 'step2' },
      );
      return `${String(step1.content?.name)} likes ${String(step2.content?.color)}`;
    };
    const r1 = inputRequired(await call(TOOL, handler));
    expect(Object.keys(r1.inputRequests ?? {})).toEqual(['step1']);
    const r2 = inputRequired(
      await call(
        { ...TOOL, inputResponses: { step1: ACCEPT_ALICE }, requestState: r1.requestState },
        handler,
      ),
    );
    expect(Object.keys(r2.inputRequests ?? {})).toEqual(['step2']);
    expect(r2.requestState).not.toBe(r1.requestState);
    // The client sends only the newest answer: step 1 comes from the signed state.
    const r3 = {
      ...TOOL,
      inputResponses: { step2: { action: 'accept', content: { color: 'teal' } } },
      requestState: r2.requestState,
    };
    expect(complete(await call(r3, handler))).toBe('Alice likes teal');
    expect(asked).toEqual(['step2', 'step2']);
  });

  test('a question that changed between rounds is asked again, not answered with the stale answer', async () => {
    let files = 3;
    const handler: Handler<string> = async (channel) => {
      const schema = { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] };
      const answer = await elicitForm(
        channel,
        { message: `Delete ${files} files?`, schema },
        { inputKey: 'confirm' },
      );
      return answer.content?.ok === true ? `deleted ${files}` : 'kept';
    };
    const r1 = inputRequired(await call(TOOL, handler));
    files = 4;
    const retry = {
      ...TOOL,
      inputResponses: { confirm: { action: 'accept', content: { ok: true } } },
      requestState: r1.requestState,
    };
    const r2 = inputRequired(await call(retry, handler));
    expect(r2.inputRequests?.confirm?.params.message).toBe('Delete 4 files?');
  });

  test('the rounds are capped: past maxRounds the request fails with -32603', async () => {
    let state: string | undefined;
    for (let round = 1; round <= 3; round++) {
      const params = state === undefined ? TOOL : { ...TOOL, requestState: state };
      state = inputRequired(await call(params, greet, { maxRounds: 3 })).requestState;
    }
    const error = await rejection(call({ ...TOOL, requestState: state }, greet, { maxRounds: 3 }));
    expect(error).toBeInstanceOf(TooManyInputRoundsError);
    expect(error).toMatchObject({ code: ErrorCode.InternalError, data: { maxRounds: 3 } });
  });
});

describe('a handler that swallows the round', () => {
  test('try/catch returning a fallback: the round still wins, the value is discarded and reported once', async () => {
    const reports: SwallowedInputRoundError[] = [];
    const handler: Handler<string> = async (channel) => {
      try {
        await channel.request('roots/list', {});
        return 'with roots';
      } catch {
        return 'fallback';
      }
    };
    const outcome = await call(TOOL, handler, { onSwallowedRound: (e) => reports.push(e) });
    expect(inputRequired(outcome).inputRequests).toEqual({ 'roots-1': { method: 'roots/list', params: {} } });
    await vi.waitFor(() => expect(reports).toHaveLength(1), { timeout: 1_000 });
    expect(reports[0]).toBeInstanceOf(SwallowedInputRoundError);
    expect(reports[0]?.message).toMatch(
      /^tools\/call "greet": the handler returned after it asked for input/,
    );
  });

  test('an unawaited ask, then a return: the round wins, no unhandled rejection', async () => {
    const reports: SwallowedInputRoundError[] = [];
    const handler: Handler<string> = (channel) => {
      void channel.request('roots/list', {});
      return Promise.resolve('done early');
    };
    const outcome = await call(TOOL, handler, { onSwallowedRound: (e) => reports.push(e) });
    expect(Object.keys(inputRequired(outcome).inputRequests ?? {})).toEqual(['roots-1']);
    expect(reports).toHaveLength(1);
  });

  test('a handler that throws after asking: the round wins (the answers may change its course)', async () => {
    const handler: Handler<string> = async (channel) => {
      // Asked, not awaited yet, when the handler fails.
      void channel.request('roots/list', {});
      await Promise.resolve();
      throw new Error('boom');
    };
    expect(Object.keys(inputRequired(await call(TOOL, handler)).inputRequests ?? {})).toEqual(['roots-1']);
  });
});

describe('bad answers and bad state are -32602', () => {
  test('inputResponses that is not an object, or an answer that is not an object', async () => {
    for (const inputResponses of [null, 42, ['a'], { user_name: 12345 }, { other: null }]) {
      const error = await rejection(call({ ...TOOL, inputResponses }, greet));
      expect(error).toBeInstanceOf(McpError);
      expect(error).toMatchObject({ code: ErrorCode.InvalidParams });
    }
  });

  test('an answer of the wrong shape ends the request with -32602 even if the handler catches it', async () => {
    const handler: Handler<string> = async (channel) => {
      try {
        await channel.request('roots/list', {}, { inputKey: 'roots' });
        return 'roots';
      } catch {
        return 'swallowed';
      }
    };
    const error = await rejection(call({ ...TOOL, inputResponses: { roots: { roots: 'nope' } } }, handler));
    expect(error).toMatchObject({
      code: ErrorCode.InvalidParams,
      message: 'inputResponses["roots"] is not a valid roots/list result: roots must be an array',
    });
  });

  test('an elicitation answer that does not match the schema: -32602, whatever the handler does', async () => {
    const handler: Handler<string> = async (channel) => {
      try {
        return await greet(channel);
      } catch {
        return 'swallowed';
      }
    };
    const params = { ...TOOL, inputResponses: { user_name: { action: 'accept', content: { name: 5 } } } };
    const error = await rejection(call(params, handler));
    expect(error).toMatchObject({ code: ErrorCode.InvalidParams });
    expect((error as Error).message).toMatch(/does not match the requested schema/);
    const badAction = { ...TOOL, inputResponses: { user_name: { action: 'maybe' } } };
    expect(await rejection(call(badAction, handler))).toMatchObject({ code: ErrorCode.InvalidParams });
  });

  test('a tampered state, or one presented with other arguments, never runs the handler', async () => {
    let runs = 0;
    const counted: Handler<string> = (channel) => {
      runs += 1;
      return greet(channel);
    };
    const first = inputRequired(await call(TOOL, counted));
    const answers = { user_name: ACCEPT_ALICE };
    const tampered = await rejection(
      call({ ...TOOL, inputResponses: answers, requestState: `${first.requestState}-TAMPERED` }, counted),
    );
    expect(tampered).toMatchObject({ code: ErrorCode.InvalidParams, reason: 'signature' });
    const otherArgs = {
      name: 'greet',
      arguments: { extra: 1 },
      inputResponses: answers,
      requestState: first.requestState,
    };
    const moved = await rejection(call(otherArgs, counted));
    expect(moved).toBeInstanceOf(RequestStateError);
    expect(moved).toMatchObject({ reason: 'binding' });
    const stranger = await rejection(
      call({ ...TOOL, inputResponses: answers, requestState: first.requestState }, counted, {
        principal: 'mallory',
      }),
    );
    expect(stranger).toMatchObject({ reason: 'binding' });
    expect(runs).toBe(1);
  });
});

describe('the channel outside a round', () => {
  test('only tools/call, prompts/get and resources/read may ask; only the three input methods exist', async () => {
    const onList = await runWithRounds(
      { method: 'completion/complete', params: {} },
      { codec },
      async (channel) => rejection(channel.request('roots/list', {})),
    );
    expect(complete(onList)).toMatchObject({ code: ErrorCode.InternalError });
    const ping = complete(await call(TOOL, (channel) => rejection(channel.request('ping', {}))));
    expect(ping).toMatchObject({
      code: ErrorCode.InternalError,
      message: 'ping cannot be sent to the client as an input request',
    });
  });

  test('after the request completed the channel is closed', async () => {
    let saved: InputRounds | undefined;
    const params = { ...TOOL, inputResponses: { r: ROOTS } };
    const value = complete(
      await call(params, async (channel) => {
        saved = channel;
        await channel.request('roots/list', {}, { inputKey: 'r' });
        return 'x';
      }),
    );
    expect(value).toBe('x');
    expect(await rejection(saved!.request('roots/list', {}))).toBeInstanceOf(ContextClosedError);
  });

  test('keys that name Object.prototype members are plain keys', async () => {
    const handler: Handler<string> = async (channel) => {
      const [a, b] = await Promise.all([
        channel.request('roots/list', {}, { inputKey: 'constructor' }),
        channel.request('roots/list', {}, { inputKey: '__proto__' }),
      ]);
      return JSON.stringify([a, b]);
    };
    const first = inputRequired(await call(TOOL, handler));
    expect(JSON.parse(JSON.stringify(first.inputRequests))).toEqual(
      JSON.parse(
        '{"constructor":{"method":"roots/list","params":{}},"__proto__":{"method":"roots/list","params":{}}}',
      ),
    );
    const inputResponses = JSON.parse(
      `{"constructor":${JSON.stringify(ROOTS)},"__proto__":{"roots":[]}}`,
    ) as JsonObject;
    const value = complete(
      await call({ ...TOOL, inputResponses, requestState: first.requestState }, handler),
    );
    expect(value).toBe(JSON.stringify([ROOTS, { roots: [] }]));
  });

  test('the same input key twice in one run is a programming error', async () => {
    const params = { ...TOOL, inputResponses: { same: ROOTS } };
    const error = complete(
      await call(params, async (channel) => {
        await channel.request('roots/list', {}, { inputKey: 'same' });
        return rejection(channel.request('roots/list', {}, { inputKey: 'same' }));
      }),
    );
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toBe('Input key "same" was used twice in one run of the handler');
  });

  test("the request's signal aborting while a round is collected rejects the run with its reason", async () => {
    const controller = new AbortController();
    const reason = new Error('peer cancelled');
    let pendingError: unknown;
    const run = call(
      TOOL,
      async (channel) => {
        const pending = channel.request('roots/list', {});
        controller.abort(reason);
        pendingError = await rejection(pending);
        return 'after abort';
      },
      { signal: controller.signal },
    );
    expect(await rejection(run)).toBe(reason);
    expect(pendingError).toBe(reason);
  });

  test('a back-channel call whose own signal already aborted fails at once', async () => {
    const controller = new AbortController();
    controller.abort();
    const error = complete(
      await call(TOOL, (channel) =>
        rejection(channel.request('roots/list', {}, { signal: controller.signal })),
      ),
    );
    expect(error).toBeInstanceOf(RequestAbortedError);
  });
});
