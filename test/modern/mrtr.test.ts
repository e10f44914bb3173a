/**
 * Issue 10: multi round-trip requests wired into the modern pipeline (memory transport). The
 * handlers (fixtures/mrtr-tools.mjs) are written once; in 2026-07-28 their `ctx.elicit`,
 * `ctx.listRoots` become `input_required` rounds completed by retries with `inputResponses` and
 * the signed `requestState`, and the same handlers send server→client requests to a legacy client.
 */
import { afterEach, expect, test } from 'vitest';
import { ErrorCode, type JsonObject } from 'keel-mcp/core';
import { McpServer, type McpServerOptions, type SwallowedInputRoundError } from 'keel-mcp/server';
import { useProcessGuard, within } from '../helpers/guard.js';
import { connect } from '../server-api/harness.js';
import { registerMrtrTools, type MrtrEvent } from './fixtures/mrtr-tools.mjs';
import { connectRaw, type Raw } from './harness.js';

useProcessGuard();
const opened: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const c of opened.splice(0)) await c.close();
});

const SERVER_INFO = { 'io.modelcontextprotocol/serverInfo': { name: 'mrtr', version: '1' } };
const CAPS = { 'io.modelcontextprotocol/clientCapabilities': { elicitation: {}, roots: {} } };
const NAME_SCHEMA = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };
const ASK_NAME = {
  method: 'elicitation/create',
  params: { mode: 'form', message: 'What is your name?', requestedSchema: NAME_SCHEMA },
};
const ADA = { action: 'accept', content: { name: 'Ada' } };
const ROOTS = { roots: [{ uri: 'file:///work', name: 'work' }] };

interface Setup {
  raw: Raw;
  events: MrtrEvent[];
  swallowed: SwallowedInputRoundError[];
  server: McpServer;
  /** Resolves once a handler reported an event that passes `test` (bounded). */
  event: (test: (e: MrtrEvent) => boolean) => Promise<void>;
}

function setup(options: McpServerOptions = {}): Setup {
  const events: MrtrEvent[] = [];
  const waiters: { test: (e: MrtrEvent) => boolean; resolve: () => void }[] = [];
  const swallowed: SwallowedInputRoundError[] = [];
  const server = new McpServer(
    { name: 'mrtr', version: '1' },
    { onerror: undefined, onSwallowedRound: (e) => swallowed.push(e), ...options },
  );
  registerMrtrTools(server, (event) => {
    events.push(event);
    for (const waiter of waiters.filter((w) => w.test(event))) waiter.resolve();
  });
  const raw = connectRaw(server);
  opened.push(raw);
  const event = (test: (e: MrtrEvent) => boolean): Promise<void> =>
    events.some(test)
      ? Promise.resolve()
      : within(new Promise<void>((resolve) => waiters.push({ test, resolve })), 5_000, 'handler event');
  return { raw, events, swallowed, server, event };
}

function call(raw: Raw, name: string, extra: JsonObject = {}, meta: JsonObject = {}): Promise<JsonObject> {
  return raw.modern('tools/call', { name, arguments: {}, ...extra }, { ...CAPS, ...meta });
}

function runs(events: MrtrEvent[], name: string): number {
  return events.filter((e) => e.event === 'run' && e.name === name).length;
}

/** Server→client requests written on the connection (there must be none in 2026-07-28). */
function serverRequests(raw: Raw): unknown[] {
  return raw.written.filter((m) => 'method' in m && 'id' in m);
}

test('a tool that elicits once: input_required, then complete on the retry', async () => {
  const { raw, events, swallowed } = setup();
  const first = await call(raw, 'ask_name');
  expect(first).toEqual({
    resultType: 'input_required',
    inputRequests: { user_name: ASK_NAME },
    requestState: expect.any(String),
    _meta: SERVER_INFO,
  });
  const second = await call(raw, 'ask_name', {
    inputResponses: { user_name: ADA },
    requestState: first.requestState,
  });
  expect(second).toEqual({
    content: [{ type: 'text', text: 'Hello, Ada!' }],
    resultType: 'complete',
    _meta: SERVER_INFO,
  });
  expect(runs(events, 'ask_name')).toBe(2);
  // The first run was aborted once its round was decided (its finally saw the signal aborted).
  expect(events.filter((e) => e.event === 'finally').map((e) => e.aborted)).toEqual([true, false]);
  expect(serverRequests(raw)).toEqual([]);
  // The handler let the signal propagate: nothing to report.
  expect(swallowed).toEqual([]);
});

test('two questions in sequence: two rounds, the second asks only what is still unknown', async () => {
  const { raw, events } = setup();
  const first = await call(raw, 'ask_twice');
  expect(Object.keys(first.inputRequests as JsonObject)).toEqual(['step1']);
  const second = await call(raw, 'ask_twice', {
    inputResponses: { step1: ADA },
    requestState: first.requestState,
  });
  expect(second.resultType).toBe('input_required');
  expect(second.inputRequests).toEqual({
    step2: {
      method: 'elicitation/create',
      params: {
        mode: 'form',
        message: 'Step 2: Ada, what is your favorite color?',
        requestedSchema: { type: 'object', properties: { color: { type: 'string' } }, required: ['color'] },
      },
    },
  });
  expect(second.requestState).not.toBe(first.requestState);
  // The third run gets step1 from the state (the client sends only step2).
  const third = await call(raw, 'ask_twice', {
    inputResponses: { step2: { action: 'accept', content: { color: 'green' } } },
    requestState: second.requestState,
  });
  expect(third.content).toEqual([{ type: 'text', text: 'Ada likes green' }]);
  expect(third.resultType).toBe('complete');
  expect(runs(events, 'ask_twice')).toBe(3);
});

test('Promise.all of two asks: one round with both', async () => {
  const { raw } = setup();
  const first = await call(raw, 'ask_both');
  expect(first.inputRequests).toEqual({
    user_name: ASK_NAME,
    client_roots: { method: 'roots/list', params: {} },
  });
  const done = await call(raw, 'ask_both', {
    inputResponses: { user_name: ADA, client_roots: ROOTS },
    requestState: first.requestState,
  });
  expect(done.content).toEqual([{ type: 'text', text: 'Ada has file:///work' }]);
});

test('a tampered requestState is -32602 and the handler does not run', async () => {
  const { raw, events } = setup();
  const first = await call(raw, 'ask_name');
  const state = first.requestState as string;
  const [kid, payload, signature] = state.split('.') as [string, string, string];
  // Flip one character of the payload (the signature no longer matches).
  const flipped = payload.slice(0, 5) + (payload[5] === 'A' ? 'B' : 'A') + payload.slice(6);
  await expect(
    call(raw, 'ask_name', {
      inputResponses: { user_name: ADA },
      requestState: `${kid}.${flipped}.${signature}`,
    }),
  ).rejects.toMatchObject({ code: ErrorCode.InvalidParams, data: { reason: expect.any(String) } });
  await expect(
    call(raw, 'ask_name', { inputResponses: { user_name: ADA }, requestState: 'not-a-state' }),
  ).rejects.toMatchObject({ code: ErrorCode.InvalidParams, data: { reason: 'malformed' } });
  expect(runs(events, 'ask_name')).toBe(1);
});

test('an expired requestState is -32602 (reason: expired)', async () => {
  let now = 1_000_000;
  const { raw } = setup({ requestState: { ttlMs: 60_000, now: () => now } });
  const first = await call(raw, 'ask_name');
  now += 60_001;
  await expect(
    call(raw, 'ask_name', { inputResponses: { user_name: ADA }, requestState: first.requestState }),
  ).rejects.toMatchObject({ code: ErrorCode.InvalidParams, data: { reason: 'expired' } });
});

test("another tool's (or other arguments') state is refused (binding)", async () => {
  const { raw } = setup();
  const first = await call(raw, 'ask_name');
  await expect(
    call(raw, 'swallow', { inputResponses: { user_name: ADA }, requestState: first.requestState }),
  ).rejects.toMatchObject({ code: ErrorCode.InvalidParams, data: { reason: 'binding' } });
  await expect(
    raw.modern(
      'tools/call',
      {
        name: 'ask_name',
        arguments: { extra: 1 },
        inputResponses: { user_name: ADA },
        requestState: first.requestState,
      },
      CAPS,
    ),
  ).rejects.toMatchObject({ code: ErrorCode.InvalidParams, data: { reason: 'binding' } });
});

test('the principal binding: a state is refused when another authInfo presents it', async () => {
  const { raw } = setup();
  let authInfo: unknown = { token: 't1', clientId: 'app', extra: { sub: 'alice' } };
  setAuth(raw, () => authInfo);
  const first = await call(raw, 'ask_name');
  // Same subject, refreshed token: accepted.
  authInfo = { token: 't2', clientId: 'app', extra: { sub: 'alice' } };
  const ok = await call(raw, 'ask_name', {
    inputResponses: { user_name: ADA },
    requestState: first.requestState,
  });
  expect(ok.content).toEqual([{ type: 'text', text: 'Hello, Ada!' }]);
  authInfo = { token: 't3', clientId: 'app', extra: { sub: 'mallory' } };
  await expect(
    call(raw, 'ask_name', { inputResponses: { user_name: ADA }, requestState: first.requestState }),
  ).rejects.toMatchObject({ code: ErrorCode.InvalidParams, data: { reason: 'binding' } });
  authInfo = undefined;
  await expect(
    call(raw, 'ask_name', { inputResponses: { user_name: ADA }, requestState: first.requestState }),
  ).rejects.toMatchObject({ code: ErrorCode.InvalidParams, data: { reason: 'binding' } });
});

test('a try/catch that swallows the rejection cannot lose the round; nothing more is written', async () => {
  const { raw, events, swallowed, event } = setup();
  // The request asks for log messages: the handler's ctx.log after the decision must still not be sent.
  const first = await call(raw, 'swallow', {}, { 'io.modelcontextprotocol/logLevel': 'debug' });
  expect(first).toMatchObject({ resultType: 'input_required', inputRequests: { user_name: ASK_NAME } });
  // The handler carried on (caught the signal, logged, returned 'fallback'): all of it discarded.
  await event((e) => e.event === 'finally');
  expect(events.filter((e) => e.event === 'log')).toHaveLength(1);
  expect(events.filter((e) => e.event === 'swallowed')).toEqual([
    { event: 'swallowed', name: 'swallow', error: 'InputRequiredSignal' },
  ]);
  expect(swallowed).toHaveLength(1);
  expect(swallowed[0]!.message).toContain('tools/call "swallow"');
  expect(raw.notifications).toEqual([]);
  // Exactly one response was written for the request.
  expect(raw.written.filter((m) => 'result' in m || 'error' in m)).toHaveLength(1);
  const done = await call(raw, 'swallow', {
    inputResponses: { user_name: ADA },
    requestState: first.requestState,
  });
  expect(done.content).toEqual([{ type: 'text', text: 'Hello, Ada!' }]);
});

test('the round cap: more rounds than maxInputRounds is -32603 with data.maxRounds', async () => {
  const { raw } = setup({ maxInputRounds: 2 });
  const first = await call(raw, 'endless');
  expect(Object.keys(first.inputRequests as JsonObject)).toEqual(['q0']);
  const second = await call(raw, 'endless', {
    inputResponses: { q0: ADA },
    requestState: first.requestState,
  });
  expect(Object.keys(second.inputRequests as JsonObject)).toEqual(['q1']);
  await expect(
    call(raw, 'endless', { inputResponses: { q1: ADA }, requestState: second.requestState }),
  ).rejects.toMatchObject({ code: ErrorCode.InternalError, data: { maxRounds: 2 } });
});

test('a prompt and a resource that ask for input', async () => {
  const { raw } = setup();
  const prompt = await raw.modern('prompts/get', { name: 'ask_prompt' }, CAPS);
  expect(prompt).toMatchObject({
    resultType: 'input_required',
    inputRequests: { user_context: { method: 'elicitation/create' } },
  });
  const promptDone = await raw.modern(
    'prompts/get',
    {
      name: 'ask_prompt',
      inputResponses: { user_context: { action: 'accept', content: { context: 'tests' } } },
      requestState: prompt.requestState,
    },
    CAPS,
  );
  expect(promptDone.resultType).toBe('complete');
  expect(promptDone.messages).toEqual([
    { role: 'user', content: { type: 'text', text: 'Use this context: tests' } },
  ]);

  const read = await raw.modern('resources/read', { uri: 'test://roots' }, CAPS);
  expect(read).toEqual({
    resultType: 'input_required',
    inputRequests: { client_roots: { method: 'roots/list', params: {} } },
    requestState: expect.any(String),
    _meta: SERVER_INFO,
  });
  const readDone = await raw.modern(
    'resources/read',
    { uri: 'test://roots', inputResponses: { client_roots: ROOTS }, requestState: read.requestState },
    CAPS,
  );
  expect(readDone).toMatchObject({
    resultType: 'complete',
    contents: [{ uri: 'test://roots', text: 'file:///work' }],
    ttlMs: 0,
    cacheScope: 'private',
  });
  const greeting = await raw.modern('resources/read', { uri: 'test://greeting' }, CAPS);
  expect(greeting.inputRequests).toEqual({
    reader: {
      method: 'elicitation/create',
      params: { mode: 'form', message: 'Who is reading?', requestedSchema: NAME_SCHEMA },
    },
  });
  const greeted = await raw.modern(
    'resources/read',
    { uri: 'test://greeting', inputResponses: { reader: ADA }, requestState: greeting.requestState },
    CAPS,
  );
  expect(greeted.contents).toEqual([
    { uri: 'test://greeting', mimeType: 'text/plain', text: 'Welcome, Ada.' },
  ]);
  expect(serverRequests(raw)).toEqual([]);
});

test('a handler of a method that cannot be answered with input_required gets -32603', async () => {
  const { raw, server } = setup();
  server.resourceTemplate('listed', 'test://listed/{id}', {}, () => 'x', {
    list: async (ctx) => (await ctx.listRoots()).roots.map((root) => ({ uri: root.uri, name: 'r' })),
  });
  await expect(raw.modern('resources/list', {}, CAPS)).rejects.toMatchObject({
    code: ErrorCode.InternalError,
    message: expect.stringContaining('only tools/call, prompts/get and resources/read'),
  });
  expect(serverRequests(raw)).toEqual([]);
});

test('URL-mode elicitation: no elicitationId on the wire, no completion notification, a stable id', async () => {
  const { raw, server } = setup();
  server.tool('connect', { description: 'Sends the user to a URL' }, async (_args, ctx) => {
    const outcome = await ctx.elicitUrl({
      message: 'Connect your account',
      url: 'https://example.com/connect',
    });
    await outcome.complete();
    return `${outcome.action} ${outcome.elicitationId}`;
  });
  const caps = { 'io.modelcontextprotocol/clientCapabilities': { elicitation: { url: {} } } };
  const first = await raw.modern('tools/call', { name: 'connect', arguments: {} }, caps);
  expect(first.inputRequests).toEqual({
    'elicit-1': {
      method: 'elicitation/create',
      params: { mode: 'url', message: 'Connect your account', url: 'https://example.com/connect' },
    },
  });
  const retry = {
    name: 'connect',
    arguments: {},
    inputResponses: { 'elicit-1': { action: 'accept' } },
    requestState: first.requestState,
  };
  const done = await raw.modern('tools/call', retry, caps);
  const again = await raw.modern('tools/call', retry, caps);
  const text = (done.content as { text: string }[])[0]!.text;
  expect(text).toMatch(/^accept url-[0-9a-z]+$/);
  expect((again.content as { text: string }[])[0]!.text).toBe(text);
  expect(raw.notifications).toEqual([]);
});

test('the same handlers, legacy era on another connection: server→client requests, no rounds', async () => {
  const { raw, server, events } = setup();
  const round = await call(raw, 'ask_both'); // the modern connection
  expect(round.resultType).toBe('input_required');
  const legacy = await connect(server, { capabilities: { elicitation: {}, roots: {} } });
  opened.push(legacy);
  const asked: string[] = [];
  legacy.client.setRequestHandler('elicitation/create', (params) => {
    asked.push(String(params.message));
    return ADA;
  });
  legacy.client.setRequestHandler('roots/list', () => {
    asked.push('roots');
    return ROOTS;
  });
  const result = await legacy.client.request('tools/call', { name: 'ask_both', arguments: {} });
  expect(result).toEqual({ content: [{ type: 'text', text: 'Ada has file:///work' }] });
  expect(asked.sort()).toEqual(['What is your name?', 'roots']);
  expect(runs(events, 'ask_both')).toBe(2);
});

/** Make every message the server reads carry `authInfo()` (as an HTTP auth layer would). */
function setAuth(raw: Raw, authInfo: () => unknown): void {
  raw.serverTransport.messageInfo = () => ({ authInfo: authInfo() });
}
