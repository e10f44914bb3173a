/**
 * The feature snippets of docs/server.md, client.md and transports.md do what those guides say:
 * every server snippet is registered on one McpServer, the client snippets run against it over the
 * in-memory transport.
 */
import { afterEach, beforeEach, expect, test, vi } from 'vitest';
import type { McpClient } from 'keel-mcp/client';
import { ErrorCode, McpError } from 'keel-mcp/core';
import type { McpServer } from 'keel-mcp/server';
import { createMemoryPair } from 'keel-mcp/memory';
import { useProcessGuard, within } from '../helpers/guard.js';
import { legacyOnly } from '../helpers/legacy-only-transport.js';
import * as clientSnippets from './snippets/client.js';
import * as context from './snippets/server-context.js';
import * as features from './snippets/server-features.js';
import * as tools from './snippets/server-tools.js';
import { memory } from './snippets/transports.js';

useProcessGuard();

let server: McpServer;
let client: McpClient;
const extraClients: McpClient[] = [];

beforeEach(async () => {
  server = features.serverOptions();
  for (const register of [
    tools.toolWithZod,
    tools.toolsWithOtherSchemas,
    tools.toolResults,
    tools.toolHandles,
    features.resources,
    features.templates,
    features.subscriptions,
    features.prompts,
    features.completionContext,
    context.contextBasics,
    context.contextBackChannel,
    context.contextFacts,
    context.contextAfterEnd,
  ]) {
    register(server);
  }
  const [clientSide, serverSide] = createMemoryPair();
  // The client snippets of docs/client.md show the handshake era (subscriptions, server-wide logs,
  // list_changed): the server plays a 2025-11-25-only one, so the default client falls back to
  // initialize as it would against any legacy server. docs/modern-era.md covers 2026-07-28.
  server.connect(legacyOnly(serverSide));
  client = await within(clientSnippets.connectClient(clientSide), 5_000, 'connect');
});

afterEach(async () => {
  for (const extra of extraClients.splice(0)) await extra.close();
  await client.close();
  await server.close();
});

function text(result: { content: unknown[] }): string {
  return (result.content[0] as { text?: string } | undefined)?.text ?? '';
}

test('registration: every tool is listed with its metadata; the removed one is gone', async () => {
  const listed = await client.listAllTools();
  expect(listed.map((t) => t.name).sort()).toEqual(
    [
      'connect-calendar',
      'divide',
      'double',
      'echo',
      'greet',
      'import-photos',
      'leaky',
      'organize',
      'pay',
      'report',
      'search',
      'whoami',
    ].sort(),
  );
  const search = listed.find((t) => t.name === 'search')!;
  expect(search).toMatchObject({
    title: 'Search the docs',
    annotations: { readOnlyHint: true, openWorldHint: false },
    _meta: { 'example.com/team': 'docs' },
  });
  expect(search.outputSchema).toMatchObject({ type: 'object' });
  expect(client.serverCapabilities).toMatchObject({
    tools: { listChanged: true },
    resources: { subscribe: true, listChanged: true },
    prompts: { listChanged: true },
    completions: {},
    logging: {},
    experimental: { 'example.com/tracing': {} },
  });
  expect(client.instructions).toBe('Search before you read.');
});

test('client-methods runs against the snippet server', async () => {
  const [, firstPage, templates, result, contents, prompt, completion] =
    await clientSnippets.clientMethods(client);
  expect((firstPage as { prompts: unknown[] }).prompts).toHaveLength(3);
  expect(templates).toEqual([expect.objectContaining({ uriTemplate: 'users://{id}/profile' })]);
  expect((result as { structuredContent: unknown }).structuredContent).toEqual({
    hits: [{ title: 'About cancel', url: 'https://example.com/docs/cancel' }],
  });
  expect(contents).toEqual([
    { uri: 'file:///project/README.md', mimeType: 'text/markdown', text: '# My project' },
  ]);
  expect(JSON.stringify(prompt)).toContain('Review this go code');
  expect(completion).toMatchObject({ values: ['python'] });
});

test('tool results: text, full results, tool errors and the URL-elicitation error', async () => {
  expect(text(await client.callTool('greet', { name: 'Ada' }))).toBe('Hello, Ada!');
  expect(text(await client.callTool('double', { n: 2 }))).toBe('4');
  expect(text(await client.callTool('echo', { message: 'hi' }))).toBe('"hi"');
  expect((await client.callTool('echo', { message: 'hi', extra: 1 })).isError).toBe(true);
  expect((await client.callTool('report')).content.map((c) => c.type)).toEqual([
    'text',
    'image',
    'resource_link',
  ]);
  expect(text(await client.callTool('divide', { a: 1, b: 2 }))).toBe('0.5');
  expect(await client.callTool('divide', { a: 1, b: 0 })).toMatchObject({
    isError: true,
    content: [{ type: 'text', text: 'Cannot divide by zero' }],
  });
  expect(await client.callTool('divide', { a: -1, b: 1 })).toMatchObject({ isError: true });
  const error: unknown = await client.callTool('pay').catch((e: unknown) => e);
  expect(error).toBeInstanceOf(McpError);
  expect((error as McpError).code).toBe(ErrorCode.UrlElicitationRequired);
});

test('resources, templates, completion with context, and subscriptions', async () => {
  const listed = await client.listAllResources();
  expect(listed.map((r) => r.uri)).toEqual([
    'file:///project/README.md',
    'file:///project/logo.png',
    'users://ada/profile',
    'users://alan/profile',
    'users://grace/profile',
  ]);
  const user = await client.readResource('users://ada/profile');
  expect(JSON.parse((user.contents[0] as { text: string }).text)).toEqual({
    uri: 'users://ada/profile',
    id: 'ada',
  });
  // The reader's "no such user" is the resource-not-found error (-32002 in this 2025-11-25 session).
  await expect(client.readResource('users://nobody/profile')).rejects.toMatchObject({
    code: ErrorCode.ResourceNotFound,
    data: { uri: 'users://nobody/profile' },
  });
  const ids = await client.complete({
    ref: { type: 'ref/resource', uri: 'users://{id}/profile' },
    argument: { name: 'id', value: 'a' },
  });
  expect(ids.completion.values).toEqual(['ada', 'alan']);
  const cities = await client.complete({
    ref: { type: 'ref/prompt', name: 'trip' },
    argument: { name: 'city', value: 'B' },
    context: { arguments: { country: 'NO' } },
  });
  expect(cities.completion.values).toEqual(['Bergen']);
  expect(JSON.stringify(await client.getPrompt('greet', { who: 'Ada' }))).toContain('Say hello to Ada');

  const updated = new Promise<string>((resolve) => client.on('resourceUpdated', ({ uri }) => resolve(uri)));
  await client.subscribeResource('file:///project/README.md');
  features.saveReadme();
  expect(await within(updated, 5_000, 'resourceUpdated')).toBe('file:///project/README.md');
});

test('client-listen: a 2026-07-28 client gets the update and the list change, and its break closes it', async () => {
  const [clientSide, serverSide] = createMemoryPair();
  server.connect(serverSide); // no legacy-only wrapper: the default client goes modern
  const modern = await within(clientSnippets.connectClient(clientSide), 5_000, 'connect');
  extraClients.push(modern);
  expect(modern.era).toBe('modern');
  // The snippet logs the acknowledgement; only then is the subscription live on the server.
  const acknowledged = new Promise<unknown>((resolve) => {
    vi.spyOn(console, 'log').mockImplementationOnce((_label: unknown, honoured: unknown) =>
      resolve(honoured),
    );
  });
  const reloaded: string[] = [];
  const ended = clientSnippets.listenForChanges(modern, (uri) => {
    reloaded.push(uri);
    server.tool('added-later', { description: 'Registered while a client listens' }, () => 'ok');
  });
  expect(await within(acknowledged, 5_000, 'acknowledged')).toEqual({
    toolsListChanged: true,
    resourceSubscriptions: ['file:///project/README.md'],
  });
  features.saveReadme();
  expect(await within(ended, 5_000, 'subscription end')).toBe('closed');
  expect(reloaded).toEqual(['file:///project/README.md']);
});

test('context: progress, logs, back-channel calls, facts, and a dead context', async () => {
  const progress: number[] = [];
  const logs: unknown[] = [];
  client.on('log', ({ data }) => logs.push(data));
  const done = await client.callTool(
    'import-photos',
    { folder: '/photos' },
    { onprogress: (p) => progress.push(p.progress) },
  );
  expect(text(done)).toBe('done');
  expect(progress).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  expect(logs).toEqual(['imported 10 photos from /photos']);

  const organized = await client.callTool('organize');
  expect(organized.isError).toBeUndefined();
  expect(text(organized)).toContain('You said 1 thing(s)');

  const completed = new Promise<string>((resolve) =>
    client.on('elicitationComplete', ({ elicitationId }) => resolve(elicitationId)),
  );
  expect(text(await client.callTool('connect-calendar'))).toBe('Connected');
  expect(typeof (await within(completed, 5_000, 'elicitationComplete'))).toBe('string');

  const facts = JSON.parse(text(await client.callTool('whoami'))) as Record<string, unknown>;
  expect(facts).toMatchObject({ client: 'my-agent', canSample: true });

  expect(text(await client.callTool('leaky'))).toBe('ok');
  expect(await context.useSavedContext()).toBe('ContextClosedError');
});

test('call options, events, output validation, error kinds and server logging', async () => {
  expect(text((await clientSnippets.callOptions(client)) as { content: unknown[] })).toBe('done');
  const off = clientSnippets.events(client);
  expect(typeof off).toBe('function');
  off();
  await clientSnippets.outputValidation(client);
  expect(await clientSnippets.errorKinds(client)).toBe('handled');

  const warned = new Promise<unknown>((resolve) =>
    client.on('log', ({ level, data }) => level === 'warning' && resolve(data)),
  );
  await client.setLoggingLevel('warning');
  await features.serverLogging(server);
  expect(await within(warned, 5_000, 'warning log')).toEqual({ disk: '95% full' });
});

test('client-handlers-later and the memory transport snippet', async () => {
  const [clientSide, serverSide] = createMemoryPair();
  const session = server.connect(legacyOnly(serverSide));
  const later = await clientSnippets.handlersLater(clientSide, () => ({
    role: 'assistant',
    content: { type: 'text', text: 'ok' },
    model: 'm',
  }));
  extraClients.push(later);
  expect(session.clientCapabilities).toMatchObject({
    sampling: { tools: {} },
    elicitation: { form: {} },
    roots: {},
  });

  const viaMemory = await memory(server);
  extraClients.push(viaMemory);
  await viaMemory.ping();
});
