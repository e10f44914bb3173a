/**
 * Issue 10, client: the `input_required` loop is invisible to the caller (spec: basic/patterns/
 * mrtr). The same sampling, elicitation and roots handlers the legacy era calls answer each round;
 * the request is sent again with `inputResponses` and the exact `requestState`, with a new id,
 * until it completes; a round limit, a failing or missing handler and the caller's abort end it
 * with a clear error and no further resend.
 */
import { describe, expect, test } from 'vitest';
import { McpClient, type McpClientOptions, InputRoundLimitError } from 'keel-mcp/client';
import {
  ConnectionClosedError,
  ErrorCode,
  McpError,
  RequestAbortedError,
  type JsonObject,
} from 'keel-mcp/core';
import { McpServer } from 'keel-mcp/server';
import { registerInputRequiredTools } from '../../examples/fixture/input-required-tools.js';
import { useProcessGuard, within } from '../helpers/guard.js';
import { discoverResult, INFO, requestsSent, useModern } from './helpers.js';

useProcessGuard();
const { connect, raw, track } = useModern();

const seen: { method: string; params: JsonObject; signal: AbortSignal }[] = [];
const HANDLERS: McpClientOptions = {
  elicitation: {
    form: (params, ctx) => {
      seen.push({
        method: 'elicitation/create',
        params: params,
        signal: ctx.signal,
      });
      const wanted = Object.keys(params.requestedSchema.properties)[0]!;
      const value = wanted === 'ok' ? true : wanted === 'color' ? 'green' : 'Ada';
      return { action: 'accept', content: { [wanted]: value } };
    },
  },
  sampling: (params, ctx) => {
    seen.push({
      method: 'sampling/createMessage',
      params: params,
      signal: ctx.signal,
    });
    return { role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'test-model' };
  },
  roots: [{ uri: 'file:///work', name: 'work' }],
};

function fixtureServer(): McpServer {
  const server = new McpServer({ name: 'mrtr', version: '1' });
  registerInputRequiredTools(server);
  return server;
}

function text(result: { content: unknown[] }): string {
  return (result.content[0] as { text: string }).text;
}

function rawClient(options: McpClientOptions = {}): McpClient {
  const client = new McpClient(INFO, options);
  track(() => client.close());
  return client;
}

describe('against a Keel server (memory): the caller sees only the final result', () => {
  test('elicitation, sampling and roots each complete through the legacy handlers', async () => {
    seen.length = 0;
    const { client } = await connect(fixtureServer(), HANDLERS);
    expect(client.era).toBe('modern');
    expect(text(await client.callTool('test_input_required_result_elicitation'))).toBe('Hello, Ada!');
    expect(text(await client.callTool('test_input_required_result_sampling'))).toBe(
      'Sampling response: Paris',
    );
    expect(text(await client.callTool('test_input_required_result_list_roots'))).toBe('Roots: file:///work');
    expect(seen.map((s) => s.method)).toEqual(['elicitation/create', 'sampling/createMessage']);
  });

  test('several inputs in one round, two rounds in a row, a prompt', async () => {
    const { client } = await connect(fixtureServer(), HANDLERS);
    expect(text(await client.callTool('test_input_required_result_multiple_inputs'))).toBe(
      'Paris Ada (1 roots)',
    );
    expect(text(await client.callTool('test_input_required_result_multi_round'))).toBe('Ada likes green');
    const prompt = await client.getPrompt('test_input_required_result_prompt');
    expect(prompt.messages[0]).toMatchObject({ content: { text: 'Write with this context: Ada' } });
  });

  test('the retry echoes requestState verbatim, adds inputResponses, and uses a new id', async () => {
    const { client, wire, serverWire } = await connect(fixtureServer(), HANDLERS);
    await client.callTool('test_input_required_result_request_state', { x: 1 });
    const calls = requestsSent(wire).filter((r) => r.method === 'tools/call');
    expect(calls).toHaveLength(2);
    expect(calls[0]!.id).not.toBe(calls[1]!.id);
    expect(calls[0]!.params).not.toHaveProperty('requestState');
    expect(calls[0]!.params).not.toHaveProperty('inputResponses');
    const answers = serverWire.sent.filter((m) => 'result' in m && m.id === calls[0]!.id);
    const state = (answers[0] as { result: JsonObject }).result.requestState;
    expect(typeof state).toBe('string');
    expect(calls[1]!.params.requestState).toBe(state);
    expect(calls[1]!.params.inputResponses).toEqual({ confirm: { action: 'accept', content: { ok: true } } });
    expect(calls[1]!.params.arguments).toEqual({ x: 1 });
    expect(calls[1]!.params.name).toBe('test_input_required_result_request_state');
  });
});

describe('against raw servers', () => {
  const ask = {
    method: 'elicitation/create',
    params: {
      mode: 'form',
      message: 'Name?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
    },
  };

  test('no requestState in the answer: none in the retry; resultType absent = complete', async () => {
    const calls: JsonObject[] = [];
    const server = raw({
      'server/discover': () => discoverResult(),
      'tools/call': (params) => {
        calls.push(params);
        return calls.length === 1
          ? { resultType: 'input_required', inputRequests: { who: ask } }
          : { content: [{ type: 'text', text: 'done' }] };
      },
    });
    const client = rawClient(HANDLERS);
    await within(client.connect(server.transport));
    expect(text(await client.callTool('t'))).toBe('done');
    expect(calls).toHaveLength(2);
    expect(calls[1]).not.toHaveProperty('requestState');
    expect(calls[1]!.inputResponses).toEqual({ who: { action: 'accept', content: { name: 'Ada' } } });
  });

  test('maxInputRounds: the request that keeps asking fails with InputRoundLimitError, exactly rounds+1 sends', async () => {
    let sends = 0;
    const server = raw({
      'server/discover': () => discoverResult(),
      'tools/call': () => (++sends, { resultType: 'input_required', requestState: `s${sends}` }),
    });
    const client = rawClient({ ...HANDLERS, maxInputRounds: 3 });
    await within(client.connect(server.transport));
    const error = await client.callTool('t').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InputRoundLimitError);
    expect((error as InputRoundLimitError).rounds).toBe(3);
    expect(sends).toBe(4);
  });

  test('the default limit is 8 rounds', async () => {
    let sends = 0;
    const server = raw({
      'server/discover': () => discoverResult(),
      'tools/call': () => (++sends, { resultType: 'input_required', requestState: 's' }),
    });
    const client = rawClient(HANDLERS);
    await within(client.connect(server.transport));
    await expect(client.callTool('t')).rejects.toBeInstanceOf(InputRoundLimitError);
    expect(sends).toBe(9);
  });

  test('a handler that throws fails the call with an McpError naming the input; nothing is resent', async () => {
    let sends = 0;
    const server = raw({
      'server/discover': () => discoverResult(),
      'tools/call': () => (
        ++sends,
        { resultType: 'input_required', inputRequests: { who: ask }, requestState: 's' }
      ),
    });
    const client = rawClient({
      elicitation: {
        form: () => {
          throw new Error('dialog crashed');
        },
      },
    });
    await within(client.connect(server.transport));
    const error = await client.callTool('t').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(ErrorCode.InternalError);
    expect((error as McpError).message).toContain('dialog crashed');
    expect((error as McpError).data).toEqual({ inputKey: 'who', method: 'elicitation/create' });
    expect(sends).toBe(1);
  });

  test('no handler configured for the method asked: -32601 McpError; nothing is resent', async () => {
    let sends = 0;
    const server = raw({
      'server/discover': () => discoverResult(),
      'tools/call': () => (
        ++sends,
        { resultType: 'input_required', inputRequests: { r: { method: 'roots/list', params: {} } } }
      ),
    });
    const client = rawClient();
    await within(client.connect(server.transport));
    await expect(client.callTool('t')).rejects.toMatchObject({
      code: ErrorCode.MethodNotFound,
      data: { inputKey: 'r', method: 'roots/list' },
    });
    expect(sends).toBe(1);
  });

  test("cancelling the caller's signal mid-round aborts the handler and stops the loop (no resend)", async () => {
    let sends = 0;
    const server = raw({
      'server/discover': () => discoverResult(),
      'tools/call': () => (
        ++sends,
        { resultType: 'input_required', inputRequests: { who: ask }, requestState: 's' }
      ),
    });
    let handlerSignal!: AbortSignal;
    let reached!: () => void;
    const asked = new Promise<void>((resolve) => (reached = resolve));
    const client = rawClient({
      elicitation: {
        // A handler that never answers by itself (a dialog left open).
        form: (_params, ctx) => {
          handlerSignal = ctx.signal;
          reached();
          return new Promise(() => undefined);
        },
      },
    });
    await within(client.connect(server.transport));
    const controller = new AbortController();
    const call = client.callTool('t', {}, { signal: controller.signal });
    await within(asked);
    controller.abort(new Error('user closed the tab'));
    const error = await within(call).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestAbortedError);
    expect(handlerSignal.aborted).toBe(true);
    expect(sends).toBe(1);
  });

  test('the connection closing mid-round aborts the handler and fails the call with ConnectionClosedError', async () => {
    let sends = 0;
    const server = raw({
      'server/discover': () => discoverResult(),
      'tools/call': () => (++sends, { resultType: 'input_required', inputRequests: { who: ask } }),
    });
    let handlerSignal!: AbortSignal;
    let reached!: () => void;
    const asked = new Promise<void>((resolve) => (reached = resolve));
    const client = rawClient({
      elicitation: {
        form: (_params, ctx) => {
          handlerSignal = ctx.signal;
          reached();
          return new Promise(() => undefined);
        },
      },
    });
    await within(client.connect(server.transport));
    const call = client.callTool('t');
    await within(asked);
    await client.close();
    await expect(within(call)).rejects.toBeInstanceOf(ConnectionClosedError);
    expect(handlerSignal.aborted).toBe(true);
    expect(sends).toBe(1);
  });

  test('URL elicitation without elicitationId (removed in 2026-07-28): the handler gets the input key', async () => {
    const urls: { url: string; elicitationId: string }[] = [];
    const server = raw({
      'server/discover': () => discoverResult(),
      'tools/call': (params) =>
        params.inputResponses
          ? { content: [{ type: 'text', text: JSON.stringify(params.inputResponses) }] }
          : {
              resultType: 'input_required',
              inputRequests: {
                login: {
                  method: 'elicitation/create',
                  params: { mode: 'url', message: 'Sign in', url: 'https://example.com/x' },
                },
              },
            },
    });
    const client = rawClient({
      elicitation: {
        url: (params) => (
          urls.push({ url: params.url, elicitationId: params.elicitationId }),
          { action: 'accept' }
        ),
      },
    });
    await within(client.connect(server.transport));
    expect(JSON.parse(text(await client.callTool('t')))).toEqual({ login: { action: 'accept' } });
    expect(urls).toEqual([{ url: 'https://example.com/x', elicitationId: 'login' }]);
  });

  test('a malformed input_required (inputRequests not an object) is a ProtocolViolationError', async () => {
    const server = raw({
      'server/discover': () => discoverResult(),
      'tools/call': () => ({ resultType: 'input_required', inputRequests: ['x'] }),
    });
    const client = rawClient(HANDLERS);
    await within(client.connect(server.transport));
    await expect(client.callTool('t')).rejects.toMatchObject({ name: 'ProtocolViolationError' });
  });
});
