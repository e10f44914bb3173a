import { afterEach, describe, expect, test } from 'vitest';
import { z } from 'zod';
import {
  CancelledByPeerError,
  ContextClosedError,
  McpError,
  MissingClientCapabilityError,
  type RequestContext,
  type JsonObject,
} from 'keel-mcp/core';
import { McpServer, type ToolContext } from 'keel-mcp/server';
import { useProcessGuard, within } from '../helpers/guard.js';
import { connect, type Connected } from './harness.js';

useProcessGuard();
let open: Connected | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

const ALL = { roots: {}, sampling: { tools: {} }, elicitation: { form: {}, url: {} } };

function text(result: JsonObject): string {
  return (result.content as { text: string }[])[0]!.text;
}

describe('back-channel', () => {
  test('listRoots, createMessage (with tools) and elicit go out routed with the originating request', async () => {
    const s = new McpServer({ name: 's', version: '1' });
    s.tool('ask', { description: 'Asks the client everything' }, async (_args, ctx) => {
      const roots = await ctx.listRoots();
      const reply = await ctx.createMessage({
        messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }],
        maxTokens: 10,
        tools: [{ name: 'calc', inputSchema: { type: 'object' } }],
        toolChoice: { mode: 'auto' },
      });
      const answer = await ctx.elicit({
        message: 'Name?',
        schema: z.object({ name: z.string(), age: z.number().int().default(30) }),
      });
      // `answer.content` is typed from the zod schema.
      const who = answer.action === 'accept' ? `${answer.content.name}/${answer.content.age}` : answer.action;
      return `${roots.roots[0]!.uri} ${reply.model} ${who}`;
    });
    open = await connect(s, { capabilities: ALL });
    const seen: JsonObject[] = [];
    open.client.setRequestHandler('roots/list', () => ({ roots: [{ uri: 'file:///work', name: 'work' }] }));
    open.client.setRequestHandler('sampling/createMessage', (params) => {
      seen.push(params);
      return { role: 'assistant', content: { type: 'text', text: 'hey' }, model: 'm1' };
    });
    open.client.setRequestHandler('elicitation/create', (params) => {
      seen.push(params);
      return { action: 'accept', content: { name: 'Ada' } };
    });
    const result = await open.client.request('tools/call', { name: 'ask' });
    expect(text(result)).toBe('file:///work m1 Ada/30');
    expect(seen[0]).toMatchObject({ tools: [{ name: 'calc' }], toolChoice: { mode: 'auto' }, maxTokens: 10 });
    expect(seen[1]).toEqual({
      mode: 'form',
      message: 'Name?',
      requestedSchema: {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        properties: {
          name: { type: 'string' },
          age: { type: 'integer', default: 30, minimum: expect.any(Number), maximum: expect.any(Number) },
        },
        required: ['name'],
      },
    });
    const callId = (open.routes.filter((r) => 'result' in r.message).at(-1)!.message as { id: number }).id;
    const nested = open.routes.filter((r) => 'method' in r.message && 'id' in r.message);
    expect(nested.map((r) => (r.message as { method: string }).method)).toEqual([
      'roots/list',
      'sampling/createMessage',
      'elicitation/create',
    ]);
    expect(nested.every((r) => r.relatedRequestId === callId)).toBe(true);
  });

  test('an elicitation answer that breaks the schema, decline and cancel', async () => {
    const s = new McpServer({ name: 's', version: '1' });
    s.tool('ask', { description: 'Asks' }, async (_a, ctx) => {
      const answer = await ctx.elicit({
        message: 'Pick',
        schema: { type: 'object', properties: { n: { type: 'integer', minimum: 1 } }, required: ['n'] },
      });
      return `${answer.action} ${JSON.stringify(answer.content ?? null)}`;
    });
    open = await connect(s, { capabilities: { elicitation: {} } });
    const answers = [
      { action: 'accept', content: { n: 0 } },
      { action: 'decline' },
      { action: 'cancel' },
      { action: 'accept', content: { n: 2 } },
    ];
    open.client.setRequestHandler('elicitation/create', () => answers.shift()!);
    const bad = await open.client.request('tools/call', { name: 'ask' });
    expect(bad.isError).toBe(true);
    expect(text(bad)).toMatch(/does not match the requested schema/);
    expect(text(await open.client.request('tools/call', { name: 'ask' }))).toBe('decline null');
    expect(text(await open.client.request('tools/call', { name: 'ask' }))).toBe('cancel null');
    expect(text(await open.client.request('tools/call', { name: 'ask' }))).toBe('accept {"n":2}');
  });

  test('URL mode: elicitationId, and complete() notifies the session afterwards', async () => {
    const s = new McpServer({ name: 's', version: '1' });
    let complete: (() => Promise<void>) | undefined;
    s.tool('connect', { description: 'Connect an account' }, async (_a, ctx) => {
      const outcome = await ctx.elicitUrl({ message: 'Connect', url: 'https://example.com/connect' });
      complete = outcome.complete;
      return `${outcome.action} ${outcome.elicitationId}`;
    });
    open = await connect(s, { capabilities: { elicitation: { url: {} } } });
    let params: JsonObject | undefined;
    open.client.setRequestHandler('elicitation/create', (p) => {
      params = p;
      return { action: 'accept' };
    });
    const result = text(await open.client.request('tools/call', { name: 'connect' }));
    expect(params).toMatchObject({ mode: 'url', message: 'Connect', url: 'https://example.com/connect' });
    expect(result).toBe(`accept ${String(params!.elicitationId)}`);
    const done = open.nextNotification('notifications/elicitation/complete');
    await complete!();
    expect(await done).toEqual({ elicitationId: params!.elicitationId });
  });

  test('undeclared client capabilities fail before anything is sent', async () => {
    const s = new McpServer({ name: 's', version: '1' });
    const attempts: Record<string, (ctx: ToolContext) => Promise<unknown>> = {
      roots: (ctx) => ctx.listRoots(),
      sampling: (ctx) => ctx.createMessage({ messages: [], maxTokens: 1 }),
      samplingTools: (ctx) => ctx.createMessage({ messages: [], maxTokens: 1, tools: [] }),
      form: (ctx) => ctx.elicit({ message: 'x', schema: { type: 'object', properties: {} } }),
      url: (ctx) => ctx.elicitUrl({ message: 'x', url: 'https://example.com' }),
    };
    s.tool('try', { description: 'Try', input: z.object({ what: z.string() }) }, async ({ what }, ctx) => {
      try {
        await attempts[what]!(ctx);
        return 'sent';
      } catch (error) {
        // Local, not a wire error: -32021 is undefined in the legacy era.
        return error instanceof MissingClientCapabilityError && !(error instanceof McpError)
          ? `${error.capability} ${error.message}`
          : String(error);
      }
    });
    // Sampling without tools, elicitation in form mode only.
    open = await connect(s, { capabilities: { sampling: {}, elicitation: { form: {} } } });
    open.client.setRequestHandler('sampling/createMessage', () => ({
      role: 'assistant',
      content: { type: 'text', text: '' },
      model: 'm',
    }));
    open.client.setRequestHandler('elicitation/create', () => ({ action: 'cancel' }));
    const run = async (what: string) =>
      text(await open!.client.request('tools/call', { name: 'try', arguments: { what } }));
    expect(await run('roots')).toBe('roots The client did not declare the "roots" capability');
    expect(await run('sampling')).toBe('sent');
    expect(await run('samplingTools')).toMatch(/"sampling.tools"/);
    expect(await run('form')).toBe('sent');
    expect(await run('url')).toMatch(/"elicitation.url"/);
    const sentMethods = open.routes.map((r) => ('method' in r.message ? r.message.method : undefined));
    expect(sentMethods.filter((m) => m === 'roots/list' || m === 'elicitation/create')).toEqual([
      'elicitation/create',
    ]);
  });

  test('cancelling the tool call cancels its pending elicitation on the wire', async () => {
    const s = new McpServer({ name: 's', version: '1' });
    let reason: unknown;
    let handlerSettled!: () => void;
    const settled = new Promise<void>((resolve) => (handlerSettled = resolve));
    s.tool('wait', { description: 'Waits for the user' }, async (_a, ctx) => {
      try {
        await ctx.elicit({ message: 'Waiting', schema: { type: 'object', properties: {} } });
        return 'answered';
      } finally {
        reason = ctx.signal.reason;
        handlerSettled();
      }
    });
    open = await connect(s, { capabilities: { elicitation: {} } });
    let elicitSignal: AbortSignal | undefined;
    let elicitArrived!: () => void;
    const arrived = new Promise<void>((resolve) => (elicitArrived = resolve));
    open.client.setRequestHandler('elicitation/create', (_p, ctx: RequestContext) => {
      elicitSignal = ctx.signal;
      elicitArrived();
      return new Promise(() => undefined);
    });
    const controller = new AbortController();
    const call = open.client.request('tools/call', { name: 'wait' }, { signal: controller.signal });
    await within(arrived, 5_000, 'elicitation request');
    controller.abort();
    await expect(call).rejects.toThrow();
    await within(settled, 5_000, 'handler finally');
    expect(reason).toBeInstanceOf(CancelledByPeerError);
    await within(
      new Promise<void>((resolve) => {
        if (elicitSignal!.aborted) resolve();
        else elicitSignal!.addEventListener('abort', () => resolve());
      }),
      5_000,
      'nested cancel',
    );
    expect(elicitSignal!.reason).toBeInstanceOf(CancelledByPeerError);
  });

  test('a context used after its request ended throws ContextClosedError', async () => {
    const s = new McpServer({ name: 's', version: '1' });
    let saved: ToolContext | undefined;
    s.tool('keep', { description: 'Keeps its context' }, (_a, ctx) => {
      saved = ctx;
      return 'ok';
    });
    open = await connect(s, { capabilities: ALL });
    await open.client.request('tools/call', { name: 'keep' });
    await expect(saved!.listRoots()).rejects.toBeInstanceOf(ContextClosedError);
    await expect(saved!.createMessage({ messages: [], maxTokens: 1 })).rejects.toBeInstanceOf(
      ContextClosedError,
    );
    await expect(
      saved!.elicit({ message: 'x', schema: { type: 'object', properties: {} } }),
    ).rejects.toBeInstanceOf(ContextClosedError);
    await expect(saved!.elicitUrl({ message: 'x', url: 'https://e.com' })).rejects.toBeInstanceOf(
      ContextClosedError,
    );
    const before = open.routes.length;
    await saved!.log('error', 'late');
    await saved!.progress(1);
    expect(open.routes.length).toBe(before);
    saved!.closeSSEStream(); // no-op without an HTTP stream
    expect(saved!.sessionId).toBeUndefined();
  });

  test('non-flat elicitation schemas throw a clear error', async () => {
    const s = new McpServer({ name: 's', version: '1' });
    s.tool('nested', { description: 'Nested' }, async (_a, ctx) => {
      await ctx.elicit({ message: 'x', schema: z.object({ inner: z.object({ a: z.string() }) }) });
      return 'sent';
    });
    open = await connect(s, { capabilities: { elicitation: {} } });
    expect(text(await open.client.request('tools/call', { name: 'nested' }))).toMatch(
      /flat primitive properties.*"inner"/,
    );
  });
});
