import { describe, expect, test, vi } from 'vitest';
import { applyElicitationDefaults, type SamplingHandler } from 'keel-mcp/client';
import { useProcessGuard, within } from '../helpers/guard.js';
import { useClientFixture } from './fixtures/use-client-fixture.js';

useProcessGuard();
const { connected } = useClientFixture();

const reply: SamplingHandler = ({ messages }) => ({
  role: 'assistant',
  content: { type: 'text', text: `echo ${JSON.stringify(messages[0]?.content)}` },
  model: 'test-model',
  stopReason: 'endTurn',
});

const DEFAULTS_SCHEMA = {
  type: 'object',
  properties: {
    name: { type: 'string', default: 'John Doe' },
    age: { type: 'integer', default: 30 },
    score: { type: 'number', default: 95.5 },
    status: { type: 'string', enum: ['active', 'inactive', 'pending'], default: 'active' },
    verified: { type: 'boolean', default: true },
    tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] }, default: ['a'] },
    nickname: { type: 'string' },
  },
};

describe('capabilities follow the configured handlers', () => {
  test('sampling, elicitation (form + url) and roots are declared; applyDefaults stays local', async () => {
    const { session, client } = await connected({
      sampling: { handler: reply, tools: true },
      elicitation: {
        form: () => ({ action: 'decline' }),
        url: () => ({ action: 'decline' }),
        applyDefaults: true,
      },
      roots: [{ uri: 'file:///work', name: 'work' }],
      capabilities: { experimental: { trace: {} } },
    });
    expect(session.clientCapabilities).toEqual({
      experimental: { trace: {} },
      sampling: { tools: {} },
      elicitation: { form: {}, url: {} },
      roots: { listChanged: true },
    });
    expect(client.capabilities).toEqual(session.clientCapabilities);
  });

  test('a capability given without a handler is not declared', async () => {
    const { session } = await connected({ capabilities: { sampling: {}, elicitation: {}, roots: {} } });
    expect(session.clientCapabilities).toEqual({});
  });

  test('capabilities.elicitation.form.applyDefaults switches defaults on (the conformance client style)', async () => {
    const { client, session } = await connected({
      capabilities: { elicitation: { form: { applyDefaults: true } } },
      elicitation: { form: () => ({ action: 'accept', content: {} }) },
    });
    expect(session.clientCapabilities).toEqual({ elicitation: { form: {} } });
    const result = await client.callTool('elicit', {
      message: 'defaults?',
      requestedSchema: DEFAULTS_SCHEMA,
    });
    expect(result.structuredContent?.content).toMatchObject({ name: 'John Doe', age: 30, verified: true });
  });

  test('handlers added before connect declare; after connect only replacing is allowed', async () => {
    const fixture = await connected({ sampling: reply });
    expect(() => fixture.client.onElicitation({ form: () => ({ action: 'cancel' }) })).toThrow(
      /after connect/,
    );
    expect(() => fixture.client.setRoots([])).toThrow(/after connect/);
    const replaced = vi.fn(reply);
    fixture.client.onSampling(replaced);
    await fixture.client.callTool('sample', { messages: [], maxTokens: 5 });
    expect(replaced).toHaveBeenCalledOnce();
  });
});

describe('sampling', () => {
  test('the server samples through the client handler during a tool call', async () => {
    const handler = vi.fn(reply);
    const { client } = await connected({ sampling: handler });
    const params = { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 10 };
    const result = await client.callTool('sample', params);
    expect(result.structuredContent).toEqual({
      role: 'assistant',
      content: { type: 'text', text: 'echo {"type":"text","text":"hi"}' },
      model: 'test-model',
      stopReason: 'endTurn',
    });
    expect(handler.mock.calls[0]?.[0]).toEqual(params);
    expect(handler.mock.calls[0]?.[1].signal).toBeInstanceOf(AbortSignal);
  });

  test('bad requests and bad handler results become errors for the server', async () => {
    const { client } = await connected({ sampling: () => ({ role: 'assistant' }) as never });
    await expect(client.callTool('sample', { maxTokens: 1 })).rejects.toMatchObject({ code: -32602 });
    await expect(
      client.callTool('sample', {
        messages: [],
        maxTokens: 1,
        tools: [{ name: 't', inputSchema: { type: 'object' } }],
      }),
    ).rejects.toThrow(/sampling.tools/);
    await expect(client.callTool('sample', { messages: [], maxTokens: 1 })).rejects.toThrow(/invalid result/);
  });

  test('without a handler the server gets method not found', async () => {
    const { client } = await connected();
    await expect(client.callTool('sample', { messages: [], maxTokens: 1 })).rejects.toMatchObject({
      code: -32601,
    });
  });
});

describe('elicitation', () => {
  test('form mode: the handler answer is returned; no defaults unless asked', async () => {
    const form = vi.fn((_params: unknown) => ({ action: 'accept' as const, content: { name: 'Ada' } }));
    const { client } = await connected({ elicitation: { form } });
    const result = await client.callTool('elicit', { message: 'Who?', requestedSchema: DEFAULTS_SCHEMA });
    expect(result.structuredContent).toEqual({ action: 'accept', content: { name: 'Ada' } });
    expect(form.mock.calls[0]?.[0]).toEqual({ message: 'Who?', requestedSchema: DEFAULTS_SCHEMA });
  });

  test('form mode with applyDefaults fills every missing field with its default (SEP-1034)', async () => {
    const { client } = await connected({
      elicitation: { form: () => ({ action: 'accept', content: { name: 'Ada' } }), applyDefaults: true },
    });
    const result = await client.callTool('elicit', { message: 'Who?', requestedSchema: DEFAULTS_SCHEMA });
    expect(result.structuredContent).toEqual({
      action: 'accept',
      content: { name: 'Ada', age: 30, score: 95.5, status: 'active', verified: true, tags: ['a'] },
    });
  });

  test('decline and cancel carry no content', async () => {
    const { client } = await connected({
      elicitation: { form: () => ({ action: 'decline', content: { x: 'y' } }), applyDefaults: true },
    });
    const result = await client.callTool('elicit', { message: 'Who?', requestedSchema: DEFAULTS_SCHEMA });
    expect(result.structuredContent).toEqual({ action: 'decline' });
  });

  test('url mode goes to the url handler; its answer has no content', async () => {
    const url = vi.fn((_params: unknown) => ({ action: 'accept' as const, content: { leaked: 'no' } }));
    const { client } = await connected({ elicitation: { url } });
    const params = { mode: 'url', message: 'Sign in', url: 'https://example.com/auth', elicitationId: 'e1' };
    const result = await client.callTool('elicit', params);
    expect(result.structuredContent).toEqual({ action: 'accept' });
    expect(url.mock.calls[0]?.[0]).toEqual(params);
  });

  test('a mode without a handler, an unknown mode or a malformed request is -32602', async () => {
    const { client } = await connected({ elicitation: { form: () => ({ action: 'cancel' }) } });
    const url = { mode: 'url', message: 'm', url: 'https://x', elicitationId: 'e' };
    await expect(client.callTool('elicit', url)).rejects.toMatchObject({ code: -32602 });
    await expect(client.callTool('elicit', { mode: 'telepathy', message: 'm' })).rejects.toMatchObject({
      code: -32602,
    });
    await expect(client.callTool('elicit', { message: 'm' })).rejects.toMatchObject({ code: -32602 });
  });

  test('a handler answer with a bad action or nested values is refused', async () => {
    const { client } = await connected({ elicitation: { form: () => ({ action: 'maybe' }) as never } });
    await expect(
      client.callTool('elicit', { message: 'm', requestedSchema: DEFAULTS_SCHEMA }),
    ).rejects.toThrow(/invalid result/);
    client.onElicitation({ form: () => ({ action: 'accept', content: { a: { nested: true } } }) as never });
    await expect(
      client.callTool('elicit', { message: 'm', requestedSchema: DEFAULTS_SCHEMA }),
    ).rejects.toThrow(/non-primitive/);
  });

  test('elicitationComplete events report URL-mode completions', async () => {
    const { client, session } = await connected({ elicitation: { url: () => ({ action: 'accept' }) } });
    const done = new Promise((resolve) => client.on('elicitationComplete', resolve));
    await session.notify('notifications/elicitation/complete', { elicitationId: 'e1' });
    expect(await within(done)).toEqual({ elicitationId: 'e1' });
  });

  test('applyElicitationDefaults keeps given values, copies array defaults, and tolerates odd schemas', () => {
    const schema = DEFAULTS_SCHEMA as never;
    const filled = applyElicitationDefaults(schema, { age: 7 });
    expect(filled).toMatchObject({ age: 7, name: 'John Doe' });
    expect(filled.tags).not.toBe(DEFAULTS_SCHEMA.properties.tags.default);
    expect(applyElicitationDefaults({} as never, { a: 1 })).toEqual({ a: 1 });
  });
});

describe('roots', () => {
  test('roots/list answers the configured roots; setRoots updates them and notifies the server', async () => {
    const { client, recorder } = await connected({ roots: [{ uri: 'file:///a', name: 'a' }] });
    expect((await client.callTool('roots')).structuredContent).toEqual({
      roots: [{ uri: 'file:///a', name: 'a' }],
    });
    await client.setRoots([{ uri: 'file:///b' }]);
    expect((await client.callTool('roots')).structuredContent).toEqual({ roots: [{ uri: 'file:///b' }] });
    await vi.waitFor(() => expect(recorder.notifications).toHaveLength(1), { timeout: 2_000 });
    expect(recorder.notifications[0]?.method).toBe('notifications/roots/list_changed');
  });

  test('a roots function is asked on every roots/list', async () => {
    let n = 0;
    const { client } = await connected({ roots: () => [{ uri: `file:///r${++n}` }] });
    expect((await client.callTool('roots')).structuredContent).toEqual({ roots: [{ uri: 'file:///r1' }] });
    expect((await client.callTool('roots')).structuredContent).toEqual({ roots: [{ uri: 'file:///r2' }] });
  });

  test('setRoots before connect declares the capability; non-file URIs are refused', async () => {
    const { McpClient } = await import('keel-mcp/client');
    const client = new McpClient({ name: 'c', version: '1' });
    expect(() => client.setRoots([{ uri: 'https://example.com' }])).toThrow(TypeError);
    await client.setRoots([{ uri: 'file:///x' }]);
    expect(client.capabilities).toEqual({ roots: { listChanged: true } });
  });

  test('without roots the server gets method not found', async () => {
    const { client } = await connected();
    await expect(client.callTool('roots')).rejects.toMatchObject({ code: -32601 });
  });
});

describe('every server→client handler gets the request signal', () => {
  const requests = [
    { method: 'sampling/createMessage', params: { messages: [], maxTokens: 1 } },
    { method: 'elicitation/create', params: { message: 'm', requestedSchema: { type: 'object' } } },
    {
      method: 'elicitation/create',
      params: { mode: 'url', message: 'm', url: 'https://example.com/a', elicitationId: 'e1' },
    },
    { method: 'roots/list', params: {} },
  ] as const;
  for (const { method, params } of requests) {
    const label = 'mode' in params ? `${method} (url)` : method;
    test(`${label}: the server's cancel aborts the handler's ctx.signal`, async () => {
      const { CancelledByPeerError } = await import('keel-mcp/core');
      let reached!: (signal: AbortSignal) => void;
      const seen = new Promise<AbortSignal>((resolve) => (reached = resolve));
      // Every handler kind waits for its own abort: only the signal can end it.
      const wait = (_params: unknown, ctx: { signal: AbortSignal }): Promise<never> => {
        reached(ctx.signal);
        return new Promise((_resolve, reject) =>
          ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason as Error), { once: true }),
        );
      };
      const { session } = await connected({
        sampling: wait,
        elicitation: { form: wait, url: wait },
        roots: (ctx) => wait(undefined, ctx),
      });
      const abort = new AbortController();
      const asking = session.request(method, params, { signal: abort.signal });
      const signal = await within(seen, 2_000, `${method} reaching the handler`);
      abort.abort();
      await expect(asking).rejects.toThrow();
      await within(
        new Promise((resolve) =>
          signal.aborted ? resolve(undefined) : signal.addEventListener('abort', resolve, { once: true }),
        ),
        2_000,
        'handler signal aborted',
      );
      expect(signal.reason).toBeInstanceOf(CancelledByPeerError);
    });
  }
});
