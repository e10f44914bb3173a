/**
 * Issue 10: multi round-trip requests over a real stdio child (fixtures/mrtr-stdio-server.mjs,
 * the built package). The same handlers complete through `input_required` rounds for a modern
 * client, send server→client requests to a legacy client, and a retry carrying a state signed with
 * a shared key is served by another process.
 */
import { join } from 'node:path';
import { beforeAll, describe, expect, test, vi } from 'vitest';
import { ErrorCode } from 'keel-mcp/core';
import { useProcessGuard, within } from '../helpers/guard.js';
import {
  assertBuilt,
  CHILD_TEST_TIMEOUT_MS,
  INITIALIZE,
  INITIALIZED,
  RawServer,
  ROOT,
  useChildCleanup,
  WAIT_MS,
  type Json,
  endAndExpectCleanExit,
} from '../stdio/helpers.js';
import { meta } from './harness.js';

vi.setConfig({ testTimeout: CHILD_TEST_TIMEOUT_MS });
useProcessGuard();
useChildCleanup();
beforeAll(assertBuilt);

const SCRIPT = join(import.meta.dirname, 'fixtures', 'mrtr-stdio-server.mjs');
const CAPS = { 'io.modelcontextprotocol/clientCapabilities': { elicitation: {}, roots: {} } };
const ADA = { action: 'accept', content: { name: 'Ada' } };
const ROOTS = { roots: [{ uri: 'file:///work', name: 'work' }] };
const SHARED_KEY = 'a shared test key of at least thirty-two bytes';

let next = 0;
async function modern(server: RawServer, method: string, params: Json, extra: Json = CAPS): Promise<Json> {
  const id = `m${++next}`;
  server.send({ jsonrpc: '2.0', id, method, params: { ...params, _meta: meta(extra) } });
  return server.response(id);
}

function tool(server: RawServer, name: string, extra: Json = {}, metaExtra: Json = CAPS): Promise<Json> {
  return modern(server, 'tools/call', { name, arguments: {}, ...extra }, metaExtra);
}

/** The `MRTR <json>` events the child wrote on stderr. */
function events(server: RawServer): Json[] {
  return server.stderr
    .split('\n')
    .filter((line) => line.startsWith('MRTR '))
    .map((line) => JSON.parse(line.slice(5)) as Json);
}

function serverRequests(server: RawServer): Json[] {
  return server.messages.filter((m) => m.method !== undefined && m.id !== undefined);
}

const finish = endAndExpectCleanExit;

describe('multi round-trip requests over stdio', () => {
  test('one, two and parallel questions, a prompt and a resource: rounds to completion', async () => {
    const server = new RawServer(SCRIPT);

    const once = await tool(server, 'ask_name');
    expect(once.result).toMatchObject({
      resultType: 'input_required',
      inputRequests: {
        user_name: { method: 'elicitation/create', params: { message: 'What is your name?' } },
      },
      requestState: expect.any(String),
    });
    expect(once.result).not.toHaveProperty('ttlMs');
    const hello = await tool(server, 'ask_name', {
      inputResponses: { user_name: ADA },
      requestState: once.result.requestState,
    });
    expect(hello.result).toMatchObject({
      resultType: 'complete',
      content: [{ type: 'text', text: 'Hello, Ada!' }],
    });

    const step1 = await tool(server, 'ask_twice');
    expect(Object.keys(step1.result.inputRequests)).toEqual(['step1']);
    const step2 = await tool(server, 'ask_twice', {
      inputResponses: { step1: ADA },
      requestState: step1.result.requestState,
    });
    expect(Object.keys(step2.result.inputRequests)).toEqual(['step2']);
    const likes = await tool(server, 'ask_twice', {
      inputResponses: { step2: { action: 'accept', content: { color: 'blue' } } },
      requestState: step2.result.requestState,
    });
    expect(likes.result.content).toEqual([{ type: 'text', text: 'Ada likes blue' }]);

    const both = await tool(server, 'ask_both');
    expect(Object.keys(both.result.inputRequests).sort()).toEqual(['client_roots', 'user_name']);
    const has = await tool(server, 'ask_both', {
      inputResponses: { user_name: ADA, client_roots: ROOTS },
      requestState: both.result.requestState,
    });
    expect(has.result.content).toEqual([{ type: 'text', text: 'Ada has file:///work' }]);

    const prompt = await modern(server, 'prompts/get', { name: 'ask_prompt' });
    expect(Object.keys(prompt.result.inputRequests)).toEqual(['user_context']);
    const promptDone = await modern(server, 'prompts/get', {
      name: 'ask_prompt',
      inputResponses: { user_context: { action: 'accept', content: { context: 'stdio' } } },
      requestState: prompt.result.requestState,
    });
    expect(promptDone.result.messages[0].content.text).toBe('Use this context: stdio');

    const read = await modern(server, 'resources/read', { uri: 'test://roots' });
    expect(read.result.inputRequests).toEqual({ client_roots: { method: 'roots/list', params: {} } });
    const readDone = await modern(server, 'resources/read', {
      uri: 'test://roots',
      inputResponses: { client_roots: ROOTS },
      requestState: read.result.requestState,
    });
    const greeting = await modern(server, 'resources/read', { uri: 'test://greeting' });
    expect(Object.keys(greeting.result.inputRequests)).toEqual(['reader']);
    const greeted = await modern(server, 'resources/read', {
      uri: 'test://greeting',
      inputResponses: { reader: ADA },
      requestState: greeting.result.requestState,
    });
    expect(greeted.result.contents[0].text).toBe('Welcome, Ada.');
    expect(readDone.result.contents).toEqual([
      { uri: 'test://roots', mimeType: 'text/plain', text: 'file:///work' },
    ]);

    expect(serverRequests(server)).toEqual([]);
    await finish(server);
  });

  test('tampered, foreign and capped: -32602, -32602, -32603; a swallowed round still wins', async () => {
    const server = new RawServer(SCRIPT);
    const first = await tool(server, 'ask_name');
    const state = first.result.requestState as string;
    const tampered = state.slice(0, -3) + (state.endsWith('AAA') ? 'BBB' : 'AAA');
    const bad = await tool(server, 'ask_name', {
      inputResponses: { user_name: ADA },
      requestState: tampered,
    });
    expect(bad.error).toMatchObject({ code: ErrorCode.InvalidParams, data: { reason: 'signature' } });
    const foreign = await tool(server, 'ask_twice', { inputResponses: { step1: ADA }, requestState: state });
    expect(foreign.error).toMatchObject({ code: ErrorCode.InvalidParams, data: { reason: 'binding' } });

    // maxInputRounds is 3 in the child.
    let round = await tool(server, 'endless');
    for (let i = 0; i < 2; i++) {
      round = await tool(server, 'endless', {
        inputResponses: { [`q${i}`]: ADA },
        requestState: round.result.requestState,
      });
      expect(round.result.resultType).toBe('input_required');
    }
    const capped = await tool(server, 'endless', {
      inputResponses: { q2: ADA },
      requestState: round.result.requestState,
    });
    expect(capped.error).toMatchObject({ code: ErrorCode.InternalError, data: { maxRounds: 3 } });

    const swallow = await tool(
      server,
      'swallow',
      {},
      { ...CAPS, 'io.modelcontextprotocol/logLevel': 'debug' },
    );
    expect(swallow.result.resultType).toBe('input_required');
    await within(
      new Promise<void>((resolve) => {
        const seen = (): boolean => events(server).some((e) => e.event === 'swallowed-report');
        if (seen()) return resolve();
        server.child.stderr!.on('data', () => seen() && resolve());
      }),
      WAIT_MS,
      'the swallowed-round report',
    );
    expect(events(server).filter((e) => e.event === 'swallowed-report')).toHaveLength(1);
    expect(server.responsesFor(swallow.id)).toHaveLength(1);
    expect(server.messages.filter((m) => m.method === 'notifications/message')).toEqual([]);
    expect(serverRequests(server)).toEqual([]);
    await finish(server);
  });

  test('with a shared key, another process serves the retry; without it: unknown-key; past its expiry: expired', async () => {
    const env = { KEEL_STATE_KEY: SHARED_KEY };
    const a = new RawServer(SCRIPT, { env });
    const b = new RawServer(SCRIPT, { env });
    const c = new RawServer(SCRIPT);
    const first = await tool(a, 'ask_name');
    const retry = { inputResponses: { user_name: ADA }, requestState: first.result.requestState };
    const onB = await tool(b, 'ask_name', retry);
    expect(onB.result.content).toEqual([{ type: 'text', text: 'Hello, Ada!' }]);
    const onC = await tool(c, 'ask_name', retry);
    expect(onC.error).toMatchObject({ code: ErrorCode.InvalidParams, data: { reason: 'unknown-key' } });
    // A process whose clock is past the state's expiry (default ttl: 10 minutes) refuses it.
    const late = new RawServer(SCRIPT, { env: { ...env, MRTR_CLOCK_SKEW_MS: String(11 * 60_000) } });
    const expired = await tool(late, 'ask_name', retry);
    expect(expired.error).toMatchObject({ code: ErrorCode.InvalidParams, data: { reason: 'expired' } });
    await Promise.all([finish(a), finish(b), finish(c), finish(late)]);
  });

  test("the fixture's input-required conformance tools: the keys the suite expects, to completion", async () => {
    const fixture = new RawServer(join(ROOT, 'dist', 'examples', 'fixture-stdio.js'));
    const all = {
      'io.modelcontextprotocol/clientCapabilities': { elicitation: {}, sampling: {}, roots: {} },
    };
    const first = await tool(fixture, 'test_input_required_result_elicitation', {}, all);
    expect(first.result.inputRequests).toEqual({
      user_name: {
        method: 'elicitation/create',
        params: {
          mode: 'form',
          message: 'What is your name?',
          requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
        },
      },
    });
    const hello = await tool(
      fixture,
      'test_input_required_result_elicitation',
      { inputResponses: { user_name: ADA, unrelated: { x: 1 } }, requestState: first.result.requestState },
      all,
    );
    expect(hello.result.content).toEqual([{ type: 'text', text: 'Hello, Ada!' }]);

    const several = await tool(fixture, 'test_input_required_result_multiple_inputs', {}, all);
    expect(Object.keys(several.result.inputRequests).sort()).toEqual([
      'client_roots',
      'greeting',
      'user_name',
    ]);

    const samplingOnly = { 'io.modelcontextprotocol/clientCapabilities': { sampling: {} } };
    const caps = await tool(fixture, 'test_input_required_result_capabilities', {}, samplingOnly);
    expect(Object.values(caps.result.inputRequests).map((r) => (r as Json).method)).toEqual([
      'sampling/createMessage',
    ]);

    const prompt = await modern(fixture, 'prompts/get', { name: 'test_input_required_result_prompt' }, all);
    expect(Object.keys(prompt.result.inputRequests)).toEqual(['user_context']);
    await finish(fixture);
  });

  test('the same handler in the legacy era: a server→client request, no rounds', async () => {
    const server = new RawServer(SCRIPT);
    server.send({
      ...INITIALIZE,
      params: { ...INITIALIZE.params, capabilities: { elicitation: {}, roots: {} } },
    });
    await server.response('init');
    server.send(INITIALIZED);
    server.send({
      jsonrpc: '2.0',
      id: 'legacy',
      method: 'tools/call',
      params: { name: 'ask_name', arguments: {} },
    });
    const ask = await server.waitFor((m) => m.method === 'elicitation/create', 'elicitation/create');
    expect(ask.params).toMatchObject({ mode: 'form', message: 'What is your name?' });
    server.send({ jsonrpc: '2.0', id: ask.id, result: ADA });
    const done = await server.response('legacy');
    expect(done.result).toEqual({ content: [{ type: 'text', text: 'Hello, Ada!' }] });
    // The same question, asked by the same handler of a modern process, is an input request.
    const modernServer = new RawServer(SCRIPT);
    const round = await tool(modernServer, 'ask_name');
    expect(round.result.inputRequests).toEqual({
      user_name: { method: 'elicitation/create', params: ask.params },
    });
    await Promise.all([finish(server), finish(modernServer)]);
  });
});
