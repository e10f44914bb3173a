/**
 * Keel's `McpClient` against Keel's servers on every transport — in-memory pair, stdio child
 * process (`dist/examples/fixture-stdio.js`; run `npm run build` first), Streamable HTTP with
 * and without sessions — with the same checks on each (support/keel-targets.ts states what each
 * transport cannot do). The fixture is never mutated: list-changed and cancellation use the probe
 * server (a fresh McpServer with fixtures/probe-tools.mjs).
 */
import { afterEach, describe, expect, test } from 'vitest';
import { LocalError, McpError, RequestAbortedError, type LoggingMessageParams } from 'keel-mcp/core';
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
  TEXTS,
} from './support/fixture-expectations.js';
import { TARGETS, type Connected, type ServerKind, type Target } from './support/keel-targets.js';

useProcessGuard();

for (const target of TARGETS) describeTarget(target);

function describeTarget(target: Target): void {
  describe(`McpClient ⇄ McpServer over ${target.name}`, () => {
    let open: Connected | undefined;
    let sampled: unknown[];
    let elicited: unknown[];

    afterEach(async () => {
      await open?.close();
      open = undefined;
    });

    async function connect(kind: ServerKind): Promise<Connected> {
      sampled = [];
      elicited = [];
      open = await target.connect(kind, {
        sampling: (params) => {
          sampled.push(params);
          return { role: 'assistant', content: { type: 'text', text: SAMPLING_REPLY }, model: 'e2e-model' };
        },
        elicitation: {
          form: (params) => {
            elicited.push(params);
            return elicitationAnswer(params.requestedSchema);
          },
          applyDefaults: true,
        },
      });
      return open;
    }

    test('fixture tools: list and call every content tool', async () => {
      const { client } = await connect('fixture');
      expect(client.serverInfo).toMatchObject({ name: 'keel-fixture' });
      const tools = await within(client.listAllTools());
      expect(tools.map((tool) => tool.name).sort()).toEqual([...FIXTURE_TOOLS].sort());
      for (const tool of tools) expect(tool.description, tool.name).toBeTruthy();

      expect((await within(client.callTool('test_simple_text'))).content).toEqual([
        { type: 'text', text: TEXTS.simple },
      ]);
      expect(blockTypes(await within(client.callTool('test_image_content', {})))).toEqual(['image']);
      expect((await within(client.callTool('test_audio_content', {}))).content).toEqual([
        { type: 'audio', data: expect.any(String), mimeType: 'audio/wav' },
      ]);
      expect((await within(client.callTool('test_embedded_resource', {}))).content).toEqual([
        {
          type: 'resource',
          resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: TEXTS.embedded },
        },
      ]);
      expect(blockTypes(await within(client.callTool('test_multiple_content_types', {})))).toEqual([
        'text',
        'image',
        'resource',
      ]);
      const failed = await within(client.callTool('test_error_handling', {}));
      expect(failed.isError).toBe(true);
      expect(firstText(failed)).toBe(TEXTS.error);
      const valid = await within(
        client.callTool('json_schema_2020_12_tool', { name: 'Ada', phone: '555', contactMethod: 'phone' }),
      );
      expect(valid.isError).toBeFalsy();
      expect((await within(client.callTool('json_schema_2020_12_tool', { name: 'Ada' }))).isError).toBe(true);
      expect(firstText(await within(client.callTool('test_reconnection', {})))).toMatch(/finished/);
      // An unknown tool is a protocol error from the peer, not a local one.
      await expect(within(client.callTool('no_such_tool', {}))).rejects.toBeInstanceOf(McpError);
    });

    test('sampling and elicitation round trips through the client handlers', async () => {
      const { client } = await connect('fixture');
      const sampling = await within(client.callTool('test_sampling', { prompt: SAMPLING_PROMPT }));
      const elicitation = await within(client.callTool('test_elicitation', { message: 'Who are you?' }));
      const defaults = await within(client.callTool('test_elicitation_sep1034_defaults', {}));
      const enums = await within(client.callTool('test_elicitation_sep1330_enums', {}));
      if (!target.backChannel) {
        // Legacy-era stateless HTTP: no route back to the client — a clear tool error, never a hang.
        expect([sampling, elicitation, defaults, enums].map((r) => r.isError)).toEqual([
          true,
          true,
          true,
          true,
        ]);
        expect(firstText(sampling)).toMatch(/sampling/);
        expect(firstText(elicitation)).toMatch(/elicitation/);
        expect([sampled, elicited]).toEqual([[], []]);
        return;
      }
      expect(firstText(sampling)).toBe(SAMPLED_TEXT);
      expect(sampled).toEqual([
        { messages: [{ role: 'user', content: { type: 'text', text: SAMPLING_PROMPT } }], maxTokens: 100 },
      ]);
      expect(firstText(elicitation)).toBe(ELICITED_TEXT);
      // The handler accepted `{}`; the client filled in the schema's defaults (applyDefaults).
      expect(firstText(defaults)).toBe(
        `Elicitation finished: action=accept, content=${JSON.stringify(SEP1034_DEFAULTS)}`,
      );
      expect(firstText(enums)).toBe('Elicitation finished: action=decline, content={}');
      expect(elicited).toHaveLength(3);
    });

    test('resources, the template, subscriptions; prompts; completion', async () => {
      const { client } = await connect('fixture');
      expect((await within(client.listAllResources())).map((r) => r.uri)).toEqual(FIXTURE_RESOURCES);
      expect((await within(client.listAllResourceTemplates())).map((t) => t.uriTemplate)).toEqual([
        FIXTURE_TEMPLATE,
      ]);
      expect((await within(client.readResource('test://static-text'))).contents).toEqual([
        { uri: 'test://static-text', mimeType: 'text/plain', text: TEXTS.staticText },
      ]);
      expect((await within(client.readResource('test://static-binary'))).contents).toEqual([
        { uri: 'test://static-binary', mimeType: 'image/png', blob: expect.any(String) },
      ]);
      expect((await within(client.readResource('test://template/123/data'))).contents).toEqual([
        { uri: 'test://template/123/data', mimeType: 'application/json', text: TEXTS.template123 },
      ]);
      await within(client.subscribeResource('test://watched-resource'));
      await within(client.unsubscribeResource('test://watched-resource'));

      expect((await within(client.listAllPrompts())).map((p) => p.name)).toEqual(FIXTURE_PROMPTS);
      expect((await within(client.getPrompt('test_simple_prompt'))).messages).toEqual([
        { role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } },
      ]);
      const withArgs = await within(
        client.getPrompt('test_prompt_with_arguments', { arg1: 'a1', arg2: 'a2' }),
      );
      expect(withArgs.messages[0]!.content).toEqual({
        type: 'text',
        text: "Prompt with arguments: arg1='a1', arg2='a2'",
      });
      const embedded = await within(
        client.getPrompt('test_prompt_with_embedded_resource', { resourceUri: 'test://x' }),
      );
      expect(embedded.messages.map((m) => m.content.type)).toEqual(['resource', 'text']);
      const image = await within(client.getPrompt('test_prompt_with_image'));
      expect(image.messages.map((m) => m.content.type)).toEqual(['image', 'text']);

      const arg2 = await within(
        client.complete({
          ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' },
          argument: { name: 'arg2', value: 'beta-t' },
          context: { arguments: { arg1: 'beta' } },
        }),
      );
      expect(arg2.completion.values).toEqual(['beta-two']);
      const id = await within(
        client.complete({
          ref: { type: 'ref/resource', uri: FIXTURE_TEMPLATE },
          argument: { name: 'id', value: '1' },
        }),
      );
      expect(id.completion.values).toEqual(['1', '123']);
    });

    test('progress reaches the onprogress callback in order', async () => {
      const { client } = await connect('fixture');
      const progress: unknown[] = [];
      const result = await within(
        client.callTool('test_tool_with_progress', {}, { onprogress: (p) => progress.push(p) }),
      );
      expect(firstText(result)).toBe('Progress tool finished');
      expect(progress).toEqual([
        { progress: 0, total: 100 },
        { progress: 50, total: 100 },
        { progress: 100, total: 100 },
      ]);
    });

    test('logging: log events during the call; the session level filters them', async () => {
      const { client } = await connect('fixture');
      const logs: LoggingMessageParams[] = [];
      client.on('log', (params) => void logs.push(params));
      await within(client.setLoggingLevel('debug'));
      await within(client.callTool('test_tool_with_logging', {}));
      expect(logs.map((log) => [log.level, log.data])).toEqual(TEXTS.logs.map((text) => ['info', text]));

      logs.length = 0;
      await within(client.setLoggingLevel('error'));
      await within(client.callTool('test_tool_with_logging', {}));
      // Without sessions the level does not outlive its own POST.
      expect(logs.map((log) => log.data)).toEqual(target.sessions ? [] : TEXTS.logs);
    });

    test('a tool added at runtime: list_changed event, and the new tool is callable', async () => {
      const { client, broadcastsReady } = await connect('probe');
      await broadcastsReady();
      let changed = 0;
      const event = new Promise<void>((resolve) =>
        client.on('toolsChanged', () => {
          changed++;
          resolve();
        }),
      );
      expect(firstText(await within(client.callTool('e2e_grow', {})))).toBe('grown_1');
      if (target.broadcasts) {
        await within(event, 5_000, 'toolsChanged event');
        expect(changed).toBe(1);
      }
      expect((await within(client.listAllTools())).map((tool) => tool.name)).toContain('grown_1');
      expect(firstText(await within(client.callTool('grown_1', {})))).toBe('grown_1 says hi');
    });

    test('caller abort mid-call: the client rejects locally, the handler sees why, the connection goes on', async () => {
      const { client, probes } = await connect('probe');
      const abort = new AbortController();
      const call = client.callTool('e2e_block', {}, { signal: abort.signal }).then(
        () => undefined,
        (error: unknown) => error,
      );
      await probes.nth('started');
      abort.abort(new Error('user gave up'));
      const error = await within(call, 5_000, 'aborted call');
      expect(error).toBeInstanceOf(RequestAbortedError);
      expect((error as RequestAbortedError).cause).toEqual(new Error('user gave up'));
      expect((await probes.nth('aborted')).reason).toBe(target.abortReason);
      await within(client.ping());
      expect(firstText(await within(client.callTool('e2e_grow', {})))).toBe('grown_1');
    });

    test('clean close: idempotent, one close event, later calls fail locally, server side released', async () => {
      const connected = await connect('probe');
      const { client } = connected;
      let closeEvents = 0;
      client.on('close', () => void closeEvents++);
      await within(client.ping());
      await connected.close();
      await within(client.close(), 5_000, 'second close');
      await within(client.closed, 5_000, 'closed promise');
      expect(client.isConnected).toBe(false);
      expect(closeEvents).toBe(1);
      const late = await within(
        client.ping().then(
          () => undefined,
          (e: unknown) => e,
        ),
      );
      expect(late).toBeInstanceOf(LocalError);
      if (connected.serverSessions) expect(connected.serverSessions()).toBe(0);
    });
  });
}
