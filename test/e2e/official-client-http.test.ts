/**
 * Interop acceptance ("Streamable HTTP"): the official SDK's `Client` (@modelcontextprotocol/sdk
 * 1.32.2, `StreamableHTTPClientTransport`) runs the whole conformance fixture against Keel's HTTP
 * server, with sessions (default) and without (`sessions: false`).
 *
 * Stateless mode is legacy-era stateless: every POST is its own connection, so the server never
 * sees the client's capabilities when a tool runs and has no way to deliver a server→client
 * request's answer. The back-channel tools (sampling, elicitation) must then fail cleanly with a
 * tool error naming the missing capability — never hang.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { createFixtureServer } from '../../examples/fixture-server.js';
import { useProcessGuard, within } from '../helpers/guard.js';
import {
  blockTypes,
  elicitationAnswer,
  ELICITED_TEXT,
  FIXTURE_PROMPTS,
  FIXTURE_RESOURCES,
  FIXTURE_TEMPLATE,
  FIXTURE_TOOLS,
  firstText,
  SAMPLED_TEXT,
  SAMPLING_PROMPT,
  SAMPLING_REPLY,
  SEP1034_DEFAULTS,
  SEP1330_FIELDS,
  TEXTS,
} from './support/fixture-expectations.js';
import { HTTP_MODES, hostHttp, rawPost, type HttpHost } from './support/http-server.js';

useProcessGuard();

describe.each(HTTP_MODES)('official SDK client ⇄ Keel fixture over Streamable HTTP (%s)', (mode) => {
  const stateful = mode === 'stateful';
  let host: HttpHost;
  let client: Client;
  let transport: StreamableHTTPClientTransport;
  let logs: { level: string; data: unknown }[];
  let sampled: Record<string, unknown>[];
  let elicited: Record<string, unknown>[];

  beforeEach(async () => {
    host = await hostHttp(createFixtureServer(), mode);
    logs = [];
    sampled = [];
    elicited = [];
    client = new Client(
      { name: 'e2e-official', version: '1.0.0' },
      { capabilities: { sampling: {}, elicitation: { form: { applyDefaults: true } } } },
    );
    client.setRequestHandler(CreateMessageRequestSchema, (request) => {
      sampled.push(request.params);
      return { role: 'assistant', content: { type: 'text', text: SAMPLING_REPLY }, model: 'e2e-model' };
    });
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      const params = request.params as Record<string, unknown>;
      elicited.push(params);
      return elicitationAnswer(params.requestedSchema);
    });
    client.setNotificationHandler(
      LoggingMessageNotificationSchema,
      (notification) => void logs.push(notification.params),
    );
    transport = new StreamableHTTPClientTransport(new URL(host.url));
    await within(client.connect(transport), 5_000, 'official client connect');
  });

  afterEach(async () => {
    await within(client.close(), 5_000, 'official client close');
    await host.close();
  });

  test('handshake: server info, capabilities, session id', () => {
    expect(client.getServerVersion()).toMatchObject({ name: 'keel-fixture', version: '1.0.0' });
    expect(client.getServerCapabilities()).toMatchObject({
      tools: {},
      resources: { subscribe: true },
      prompts: {},
      logging: {},
      completions: {},
    });
    if (stateful) expect(transport.sessionId).toMatch(/^[\x21-\x7e]{16,}$/);
    else expect(transport.sessionId).toBeUndefined();
  });

  test('tools/list names every fixture tool, each described, the 2020-12 schema kept as given', async () => {
    const { tools } = await within(client.listTools());
    expect(tools.map((tool) => tool.name).sort()).toEqual([...FIXTURE_TOOLS].sort());
    for (const tool of tools) expect(tool.description, tool.name).toBeTruthy();
    const schema = tools.find((tool) => tool.name === 'json_schema_2020_12_tool')!.inputSchema;
    expect(schema).toMatchObject({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      $defs: { address: { type: 'object' } },
      additionalProperties: false,
    });
  });

  test('content tools return their fixed content', async () => {
    const simple = await within(client.callTool({ name: 'test_simple_text' }));
    expect(simple.content).toEqual([{ type: 'text', text: TEXTS.simple }]);
    const image = await within(client.callTool({ name: 'test_image_content', arguments: {} }));
    expect(image.content).toEqual([{ type: 'image', data: expect.any(String), mimeType: 'image/png' }]);
    const audio = await within(client.callTool({ name: 'test_audio_content', arguments: {} }));
    expect(audio.content).toEqual([{ type: 'audio', data: expect.any(String), mimeType: 'audio/wav' }]);
    const embedded = await within(client.callTool({ name: 'test_embedded_resource', arguments: {} }));
    expect(embedded.content).toEqual([
      {
        type: 'resource',
        resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: TEXTS.embedded },
      },
    ]);
    const mixed = await within(client.callTool({ name: 'test_multiple_content_types', arguments: {} }));
    expect(blockTypes(mixed)).toEqual(['text', 'image', 'resource']);
    const failed = await within(client.callTool({ name: 'test_error_handling', arguments: {} }));
    expect(failed.isError).toBe(true);
    expect(firstText(failed)).toBe(TEXTS.error);
    const valid = await within(
      client.callTool({
        name: 'json_schema_2020_12_tool',
        arguments: { name: 'Ada', email: 'ada@example.com', address: { street: 'Main', city: 'Oslo' } },
      }),
    );
    expect(valid.isError).toBeFalsy();
    const invalid = await within(
      client.callTool({ name: 'json_schema_2020_12_tool', arguments: { name: 'Ada' } }),
    );
    expect(invalid.isError).toBe(true);
    const reconnection = await within(client.callTool({ name: 'test_reconnection', arguments: {} }));
    expect(firstText(reconnection)).toMatch(/finished/);
  });

  test('logging/setLevel, then test_tool_with_logging sends its 3 log notifications', async () => {
    expect(await within(client.setLoggingLevel('debug'))).toEqual({});
    const result = await within(client.callTool({ name: 'test_tool_with_logging', arguments: {} }));
    expect(firstText(result)).toBe('Logging tool finished');
    expect(logs.map((log) => log.data)).toEqual(TEXTS.logs);
    expect(logs.every((log) => log.level === 'info')).toBe(true);
  });

  test('logging/setLevel error filters the info logs out (stateful: the level is per session)', async () => {
    await within(client.setLoggingLevel('error'));
    await within(client.callTool({ name: 'test_tool_with_logging', arguments: {} }));
    // Stateless: each POST is a fresh connection, so the level set by an earlier POST is gone.
    expect(logs.map((log) => log.data)).toEqual(stateful ? [] : TEXTS.logs);
  });

  test('test_tool_with_progress reports 0, 50, 100 of 100 to the caller', async () => {
    const progress: { progress: number; total?: number | undefined }[] = [];
    const result = await within(
      client.callTool({ name: 'test_tool_with_progress', arguments: {} }, undefined, {
        onprogress: (p) => progress.push(p),
      }),
    );
    expect(firstText(result)).toBe('Progress tool finished');
    expect(progress).toEqual([
      { progress: 0, total: 100 },
      { progress: 50, total: 100 },
      { progress: 100, total: 100 },
    ]);
  });

  test('sampling and elicitation round trips', async () => {
    const sampling = await within(
      client.callTool({ name: 'test_sampling', arguments: { prompt: SAMPLING_PROMPT } }),
    );
    const elicitation = await within(
      client.callTool({ name: 'test_elicitation', arguments: { message: 'Who are you?' } }),
    );
    const defaults = await within(
      client.callTool({ name: 'test_elicitation_sep1034_defaults', arguments: {} }),
    );
    const enums = await within(client.callTool({ name: 'test_elicitation_sep1330_enums', arguments: {} }));
    if (!stateful) {
      // Legacy-era stateless: no capabilities, no route back. A clear tool error, no hang.
      expect(sampling.isError).toBe(true);
      expect(firstText(sampling)).toMatch(/sampling/);
      for (const result of [elicitation, defaults, enums]) {
        expect(result.isError).toBe(true);
        expect(firstText(result)).toMatch(/elicitation/);
      }
      expect(sampled).toEqual([]);
      expect(elicited).toEqual([]);
      return;
    }
    expect(firstText(sampling)).toBe(SAMPLED_TEXT);
    expect(sampled).toEqual([
      {
        messages: [{ role: 'user', content: { type: 'text', text: SAMPLING_PROMPT } }],
        maxTokens: 100,
      },
    ]);
    expect(firstText(elicitation)).toBe(ELICITED_TEXT);
    expect(elicited[0]).toMatchObject({ message: 'Who are you?' });
    // The official client filled in every SEP-1034 default (applyDefaults) before answering.
    expect(firstText(defaults)).toBe(
      `Elicitation finished: action=accept, content=${JSON.stringify(SEP1034_DEFAULTS)}`,
    );
    expect(firstText(enums)).toBe('Elicitation finished: action=decline, content={}');
    const enumSchema = elicited[2]!.requestedSchema as { properties: Record<string, unknown> };
    expect(Object.keys(enumSchema.properties)).toEqual(SEP1330_FIELDS);
  });

  test('resources: list, read each, read the template, subscribe and unsubscribe', async () => {
    const { resources } = await within(client.listResources());
    expect(resources.map((resource) => resource.uri)).toEqual(FIXTURE_RESOURCES);
    for (const resource of resources) expect(resource.name).toBeTruthy();
    const { resourceTemplates } = await within(client.listResourceTemplates());
    expect(resourceTemplates.map((template) => template.uriTemplate)).toEqual([FIXTURE_TEMPLATE]);

    expect((await within(client.readResource({ uri: 'test://static-text' }))).contents).toEqual([
      { uri: 'test://static-text', mimeType: 'text/plain', text: TEXTS.staticText },
    ]);
    expect((await within(client.readResource({ uri: 'test://static-binary' }))).contents).toEqual([
      { uri: 'test://static-binary', mimeType: 'image/png', blob: expect.any(String) },
    ]);
    const watched = await within(client.readResource({ uri: 'test://watched-resource' }));
    expect(watched.contents[0]).toMatchObject({ uri: 'test://watched-resource', text: expect.any(String) });
    expect((await within(client.readResource({ uri: 'test://template/123/data' }))).contents).toEqual([
      { uri: 'test://template/123/data', mimeType: 'application/json', text: TEXTS.template123 },
    ]);
    expect(await within(client.subscribeResource({ uri: 'test://watched-resource' }))).toEqual({});
    expect(await within(client.unsubscribeResource({ uri: 'test://watched-resource' }))).toEqual({});
  });

  test('prompts: list and get each; completion of a prompt argument and a template variable', async () => {
    const { prompts } = await within(client.listPrompts());
    expect(prompts.map((prompt) => prompt.name)).toEqual(FIXTURE_PROMPTS);
    for (const prompt of prompts) expect(prompt.description, prompt.name).toBeTruthy();

    expect((await within(client.getPrompt({ name: 'test_simple_prompt' }))).messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } },
    ]);
    const withArgs = await within(
      client.getPrompt({
        name: 'test_prompt_with_arguments',
        arguments: { arg1: 'testValue1', arg2: 'testValue2' },
      }),
    );
    expect(withArgs.messages[0]!.content).toEqual({
      type: 'text',
      text: "Prompt with arguments: arg1='testValue1', arg2='testValue2'",
    });
    const embedded = await within(
      client.getPrompt({
        name: 'test_prompt_with_embedded_resource',
        arguments: { resourceUri: 'test://example-resource' },
      }),
    );
    expect(embedded.messages.map((message) => message.content.type)).toEqual(['resource', 'text']);
    expect(embedded.messages[0]!.content).toMatchObject({
      resource: { uri: 'test://example-resource', mimeType: 'text/plain' },
    });
    const image = await within(client.getPrompt({ name: 'test_prompt_with_image' }));
    expect(image.messages.map((message) => message.content.type)).toEqual(['image', 'text']);
    expect(image.messages[0]!.content).toMatchObject({ mimeType: 'image/png', data: expect.any(String) });

    const prompt = await within(
      client.complete({
        ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' },
        argument: { name: 'arg1', value: 'a' },
      }),
    );
    expect(prompt.completion.values).toEqual(['alpha']);
    const template = await within(
      client.complete({
        ref: { type: 'ref/resource', uri: FIXTURE_TEMPLATE },
        argument: { name: 'id', value: '12' },
      }),
    );
    expect(template.completion.values).toEqual(['123']);
  });

  test.runIf(stateful)('terminateSession() DELETEs the session; its id then gets 404', async () => {
    const sessionId = transport.sessionId!;
    expect(host.serving.handler.sessionCount).toBe(1);
    await within(transport.terminateSession(), 5_000, 'terminateSession');
    expect(transport.sessionId).toBeUndefined();
    expect(host.serving.handler.sessionCount).toBe(0);
    const late = await rawPost(
      host.url,
      { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
      { 'mcp-session-id': sessionId },
    );
    expect(late.status).toBe(404);
    await late.body?.cancel();
  });

  test.runIf(!stateful)('stateless: no session is kept between requests', async () => {
    await within(client.ping());
    expect(host.serving.handler.sessionCount).toBe(0);
    const get = await fetch(host.url, { headers: { accept: 'text/event-stream' } });
    expect(get.status).toBe(405);
    await get.body?.cancel();
  });
});
