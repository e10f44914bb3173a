/**
 * Interop: the official SDK's Client (1.32.2) drives our fixture server over stdio — every tool,
 * resource, template and prompt of conformance-fixture.md §4, including sampling and elicitation
 * round trips. Needs `npm run build` (the test script builds first).
 */
import { existsSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { FIXTURE_RESOURCES, FIXTURE_TOOLS } from '../e2e/support/fixture-expectations.js';
import { useProcessGuard, within } from '../helpers/guard.js';

const FIXTURE = 'dist/examples/fixture-stdio.js';

useProcessGuard();

let client: Client;
let transport: StdioClientTransport;
const logs: unknown[] = [];
const elicitations: Record<string, unknown>[] = [];
const samplings: Record<string, unknown>[] = [];

beforeAll(async () => {
  if (!existsSync(FIXTURE)) throw new Error(`${FIXTURE} is missing: run \`npm run build\` first`);
  client = new Client(
    { name: 'sdk-interop', version: '1.0.0' },
    { capabilities: { sampling: {}, elicitation: { form: {} } } },
  );
  client.setRequestHandler(CreateMessageRequestSchema, (request) => {
    samplings.push(request.params);
    return { role: 'assistant', content: { type: 'text', text: 'forty-two' }, model: 'sdk-model' };
  });
  client.setRequestHandler(ElicitRequestSchema, (request) => {
    const params = request.params as Record<string, unknown>;
    elicitations.push(params);
    const properties = (params.requestedSchema as { properties: Record<string, unknown> }).properties;
    if ('username' in properties)
      return { action: 'accept', content: { username: 'ada', email: 'ada@example.com' } };
    return { action: 'decline' };
  });
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params));
  transport = new StdioClientTransport({ command: process.execPath, args: [FIXTURE], stderr: 'pipe' });
  await within(client.connect(transport), 10_000, 'SDK client connect');
});

afterAll(async () => {
  await client?.close();
});

function firstText(result: object): string {
  return (
    ((result as { content: unknown }).content as { type: string; text?: string }[]).find(
      (c) => c.type === 'text',
    )?.text ?? ''
  );
}

describe('official SDK client ↔ Keel fixture over stdio', () => {
  test('capabilities and tools/list', async () => {
    expect(client.getServerCapabilities()).toMatchObject({
      tools: {},
      resources: { subscribe: true },
      prompts: {},
      logging: {},
      completions: {},
    });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...FIXTURE_TOOLS].sort());
    for (const tool of tools) expect(tool.description).toBeTruthy();
    const raw = tools.find((t) => t.name === 'json_schema_2020_12_tool')!.inputSchema as Record<
      string,
      unknown
    >;
    expect(raw.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(raw.additionalProperties).toBe(false);
    expect(raw.$defs).toMatchObject({ address: { type: 'object' } });
  });

  test('content tools', async () => {
    expect(firstText(await client.callTool({ name: 'test_simple_text' }))).toBe(
      'This is a simple text response for testing.',
    );
    const image = await client.callTool({ name: 'test_image_content', arguments: {} });
    expect(image.content).toEqual([{ type: 'image', data: expect.any(String), mimeType: 'image/png' }]);
    const audio = await client.callTool({ name: 'test_audio_content', arguments: {} });
    expect(audio.content).toEqual([{ type: 'audio', data: expect.any(String), mimeType: 'audio/wav' }]);
    const embedded = await client.callTool({ name: 'test_embedded_resource', arguments: {} });
    expect(embedded.content).toEqual([
      {
        type: 'resource',
        resource: {
          uri: 'test://embedded-resource',
          mimeType: 'text/plain',
          text: 'This is an embedded resource content.',
        },
      },
    ]);
    const mixed = await client.callTool({ name: 'test_multiple_content_types', arguments: {} });
    expect((mixed.content as { type: string }[]).map((c) => c.type)).toEqual(['text', 'image', 'resource']);
    const error = await client.callTool({ name: 'test_error_handling', arguments: {} });
    expect(error).toMatchObject({ isError: true });
    expect(firstText(error)).toBe('This tool intentionally returns an error for testing');
    const schema = await client.callTool({
      name: 'json_schema_2020_12_tool',
      arguments: { name: 'Ada', email: 'a@example.com', address: { street: 'Main', city: 'Oslo' } },
    });
    expect(schema.isError).toBeUndefined();
    const invalid = await client.callTool({ name: 'json_schema_2020_12_tool', arguments: { name: 'Ada' } });
    expect(invalid.isError).toBe(true);
  });

  test('logging, progress and reconnection tools', async () => {
    logs.length = 0;
    await client.callTool({ name: 'test_tool_with_logging', arguments: {} });
    expect(logs.map((l) => (l as { data: unknown }).data)).toEqual([
      'Tool execution started',
      'Tool processing data',
      'Tool execution completed',
    ]);
    const progress: number[] = [];
    await client.callTool({ name: 'test_tool_with_progress', arguments: {} }, undefined, {
      onprogress: (p) => progress.push(p.progress),
    });
    // The SDK client handles notifications a microtask later than responses, so when the last
    // progress and the result arrive in one stdout chunk it drops that progress (its own quirk).
    // Keel writes the result 10 ms after the progress (issue 23 item 2), so that happens only to a
    // client not scheduled meanwhile; test/stdio/official-client-progress.test.ts covers it.
    expect([0, 50, 100].slice(0, progress.length)).toEqual(progress);
    expect(progress.length).toBeGreaterThanOrEqual(2);
    expect(firstText(await client.callTool({ name: 'test_reconnection', arguments: {} }))).toMatch(
      /finished/,
    );
  });

  test('sampling and elicitation round trips', async () => {
    const sampled = await client.callTool({ name: 'test_sampling', arguments: { prompt: 'What is 6×7?' } });
    expect(firstText(sampled)).toBe('LLM response: forty-two');
    expect(samplings[0]).toMatchObject({
      messages: [{ role: 'user', content: { type: 'text', text: 'What is 6×7?' } }],
      maxTokens: 100,
    });
    const elicited = await client.callTool({
      name: 'test_elicitation',
      arguments: { message: 'Who are you?' },
    });
    expect(firstText(elicited)).toBe(
      'User response: action=accept, content={"username":"ada","email":"ada@example.com"}',
    );
    await client.callTool({ name: 'test_elicitation_sep1034_defaults', arguments: {} });
    await client.callTool({ name: 'test_elicitation_sep1330_enums', arguments: {} });
    const defaults = elicitations[1]!.requestedSchema as {
      properties: Record<string, Record<string, unknown>>;
    };
    expect(defaults.properties).toMatchObject({
      name: { type: 'string', default: 'John Doe' },
      age: { type: 'integer', default: 30 },
      score: { type: 'number', default: 95.5 },
      status: { type: 'string', enum: ['active', 'inactive', 'pending'], default: 'active' },
      verified: { type: 'boolean', default: true },
    });
    const enums = elicitations[2]!.requestedSchema as { properties: Record<string, Record<string, unknown>> };
    expect(Object.keys(enums.properties)).toEqual([
      'untitledSingle',
      'titledSingle',
      'legacyEnum',
      'untitledMulti',
      'titledMulti',
    ]);
    expect(enums.properties.titledSingle!.enum).toBeUndefined();
    expect(enums.properties.legacyEnum).toMatchObject({
      enum: ['opt1', 'opt2', 'opt3'],
      enumNames: expect.any(Array),
    });
  });

  test('resources, template, subscriptions', async () => {
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toEqual(FIXTURE_RESOURCES);
    for (const r of resources) expect(r.name).toBeTruthy();
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(['test://template/{id}/data']);
    expect((await client.readResource({ uri: 'test://static-text' })).contents).toEqual([
      {
        uri: 'test://static-text',
        mimeType: 'text/plain',
        text: 'This is the content of the static text resource.',
      },
    ]);
    expect((await client.readResource({ uri: 'test://static-binary' })).contents).toEqual([
      { uri: 'test://static-binary', mimeType: 'image/png', blob: expect.any(String) },
    ]);
    expect((await client.readResource({ uri: 'test://template/123/data' })).contents).toEqual([
      {
        uri: 'test://template/123/data',
        mimeType: 'application/json',
        text: '{"id":"123","templateTest":true,"data":"Data for ID: 123"}',
      },
    ]);
    expect(await client.subscribeResource({ uri: 'test://watched-resource' })).toEqual({});
    expect(await client.unsubscribeResource({ uri: 'test://watched-resource' })).toEqual({});
  });

  test('prompts and completion', async () => {
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual([
      'test_simple_prompt',
      'test_prompt_with_arguments',
      'test_prompt_with_embedded_resource',
      'test_prompt_with_image',
      'test_input_required_result_prompt',
    ]);
    for (const p of prompts) expect(p.description).toBeTruthy();
    expect((await client.getPrompt({ name: 'test_simple_prompt' })).messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } },
    ]);
    const withArgs = await client.getPrompt({
      name: 'test_prompt_with_arguments',
      arguments: { arg1: 'hello', arg2: 'world' },
    });
    expect(withArgs.messages[0]!.content).toEqual({
      type: 'text',
      text: "Prompt with arguments: arg1='hello', arg2='world'",
    });
    const embedded = await client.getPrompt({
      name: 'test_prompt_with_embedded_resource',
      arguments: { resourceUri: 'test://x' },
    });
    expect(embedded.messages.map((m) => m.content.type)).toEqual(['resource', 'text']);
    expect(embedded.messages[0]!.content).toMatchObject({
      resource: { uri: 'test://x', mimeType: 'text/plain' },
    });
    const image = await client.getPrompt({ name: 'test_prompt_with_image' });
    expect(image.messages.map((m) => m.content.type)).toEqual(['image', 'text']);
    const completion = await client.complete({
      ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' },
      argument: { name: 'arg1', value: 'a' },
    });
    expect(completion.completion.values).toEqual(['alpha']);
  });
});
