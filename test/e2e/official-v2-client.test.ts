/**
 * Interop acceptance, 2026-07-28 (issue 10, "Done when" 4, first half): the official v2 client
 * (`@modelcontextprotocol/client` 2.4.0) drives Keel's conformance fixture in the modern era over
 * Streamable HTTP (sessions on and off: modern requests ignore them) and over stdio, and calls
 * every feature: tools (text, structured output, error result, other content), resources,
 * templates, prompts, completion, logging at a per-request level, progress, cancellation,
 * `subscriptions/listen`, and elicitation, sampling and roots through `input_required` rounds that
 * the client fulfils with the same handlers a legacy connection calls.
 *
 * The client picks the era with `versionNegotiation` (`'auto'`: a `server/discover` probe with a
 * fallback to `initialize`; `{ pin }`: no fallback). The tests check the era really is modern: no
 * `initialize` anywhere on the wire, every request carries the 2026-07-28 `_meta` (and header on
 * HTTP), and the server's handler saw 2026-07-28 for the request.
 */
import { ProtocolError } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { useProcessGuard, within } from '../helpers/guard.js';
import {
  ELICITED_TEXT,
  FIXTURE_PROMPTS,
  FIXTURE_RESOURCES,
  FIXTURE_TEMPLATE,
  FIXTURE_TOOLS,
  SAMPLED_TEXT,
  SAMPLING_PROMPT,
  SAMPLING_REPLY,
  SEP1034_DEFAULTS,
  TEXTS,
  blockTypes,
  firstText,
} from './support/fixture-expectations.js';
import {
  CLIENT_INFO,
  MODERN,
  ROOTS,
  V2_TARGETS,
  connectOfficialV2,
  type OfficialV2,
} from './support/official-v2.js';

useProcessGuard();

const PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';
const LOG_LEVEL = 'io.modelcontextprotocol/logLevel';
const PROBE_TOOLS = ['e2e_block', 'e2e_ask', 'e2e_grow'];
const INTEROP_TOOLS = ['interop_weather', 'interop_era'];

type Sent = { method?: string; params?: Record<string, unknown> };

/** The requests (not notifications or responses) the client sent, in order. */
function requests(v2: OfficialV2): Sent[] {
  return (v2.sent as Sent[]).filter((message) => 'id' in message && message.method !== undefined);
}

/** The `tools/call` requests the client sent for `name`. */
function callsOf(v2: OfficialV2, name: string): Sent[] {
  return requests(v2).filter((message) => message.method === 'tools/call' && message.params?.name === name);
}

describe.each(V2_TARGETS)('official v2 client ⇄ Keel fixture, 2026-07-28, over %s', (target) => {
  const http = target !== 'stdio';
  // stdio: one connection serves the feature tests, because the official stdio transport's close()
  // leaves an unref'd 2 s timer pending, which the process guard would wait out after every test.
  // HTTP: a connection per test, closed inside the guard's window (its sockets are checked too).
  let shared: OfficialV2;
  beforeAll(async () => {
    if (!http) shared = await connectOfficialV2(target);
  });
  afterAll(async () => {
    if (!http) await shared.close();
  });
  beforeEach(async () => {
    if (http) shared = await connectOfficialV2(target);
    else shared.reset();
  });
  afterEach(async () => {
    if (http) await shared.close();
  });

  test.each(['auto', 'pin'] as const)(
    '%s negotiation: the era is modern, no initialize, per-request _meta',
    async (mode) => {
      const v2 = await connectOfficialV2(target, mode);
      try {
        await expectModern(v2);
      } finally {
        await v2.close();
      }
    },
  );

  async function expectModern(v2: OfficialV2): Promise<void> {
    expect(v2.client.getProtocolEra()).toBe('modern');
    expect(v2.client.getNegotiatedProtocolVersion()).toBe(MODERN);
    expect(v2.client.getServerVersion()).toMatchObject({ name: 'keel-fixture', version: '1.0.0' });
    expect(v2.client.getDiscoverResult()?.supportedVersions).toEqual([MODERN]);
    expect(v2.client.getServerCapabilities()).toMatchObject({ tools: {}, resources: {}, prompts: {} });
    expect(v2.client.getInstructions()).toMatch(/Conformance fixture/);

    // What the server's handler saw for this request: the request's own _meta, not a handshake.
    const era = await within(v2.client.callTool({ name: 'interop_era' }));
    expect(JSON.parse(firstText(era))).toEqual({ protocolVersion: MODERN, client: CLIENT_INFO.name });

    const sent = requests(v2);
    expect(sent.map((message) => message.method)).not.toContain('initialize');
    expect(v2.sent.map((message) => (message as Sent).method)).not.toContain('notifications/initialized');
    for (const message of sent) {
      expect((message.params?._meta as Record<string, unknown>)[PROTOCOL_VERSION], message.method).toBe(
        MODERN,
      );
    }
    if (!http) return;
    // HTTP: the probe went over this connection first; no session was ever opened.
    expect(v2.http.map((call) => (call.body as Sent).method)).toEqual(['server/discover', 'tools/call']);
    for (const call of v2.http) {
      expect(call.method).toBe('POST');
      expect(call.headers['mcp-protocol-version']).toBe(MODERN);
      expect(call.headers['mcp-method']).toBe((call.body as Sent).method);
      expect(call.headers['mcp-session-id']).toBeUndefined();
    }
    expect(v2.host!.serving.handler.sessionCount).toBe(0);
  }

  test('tools/list: every fixture, probe and interop tool, schemas as given', async () => {
    const { client } = shared;
    const { tools } = await within(client.listTools());
    expect(tools.map((tool) => tool.name).sort()).toEqual(
      [...FIXTURE_TOOLS, ...PROBE_TOOLS, ...INTEROP_TOOLS].sort(),
    );
    expect(tools.find((tool) => tool.name === 'json_schema_2020_12_tool')!.inputSchema).toMatchObject({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      $defs: { address: { type: 'object' } },
    });
    expect(tools.find((tool) => tool.name === 'interop_weather')!.outputSchema).toMatchObject({
      required: ['city', 'tempC'],
    });
  });

  test('tools/call: text, structured output, error result, other content, invalid arguments', async () => {
    const { client } = shared;
    const simple = await within(client.callTool({ name: 'test_simple_text' }));
    expect(simple.content).toEqual([{ type: 'text', text: TEXTS.simple }]);
    expect(simple.isError).toBeFalsy();

    await within(client.listTools()); // the client validates structured output against the listed schema
    const weather = await within(client.callTool({ name: 'interop_weather', arguments: { city: 'Oslo' } }));
    expect(weather.structuredContent).toEqual({ city: 'Oslo', tempC: 4 });
    expect(JSON.parse(firstText(weather))).toEqual({ city: 'Oslo', tempC: 4 });

    const failed = await within(client.callTool({ name: 'test_error_handling' }));
    expect(failed.isError).toBe(true);
    expect(firstText(failed)).toBe(TEXTS.error);

    const image = await within(client.callTool({ name: 'test_image_content' }));
    expect(image.content).toEqual([{ type: 'image', data: expect.any(String), mimeType: 'image/png' }]);
    const mixed = await within(client.callTool({ name: 'test_multiple_content_types' }));
    expect(blockTypes(mixed)).toEqual(['text', 'image', 'resource']);

    const invalid = await within(
      client.callTool({ name: 'json_schema_2020_12_tool', arguments: { name: 'Ada' } }),
    );
    expect(invalid.isError).toBe(true);
  });

  test('x-mcp-header parameter: mirrored by the client, accepted by Keel', async () => {
    const { client } = shared;
    await within(client.listTools()); // the client mirrors from the listed schema
    const result = await within(
      client.callTool({ name: 'test_param_header', arguments: { region: 'eu-west' } }),
    );
    expect(firstText(result)).toBe('Region: eu-west');
    if (http) {
      const call = shared.http.find((c) => (c.body as Sent).params?.name === 'test_param_header')!;
      expect(call.headers['mcp-param-region']).toBe('eu-west');
    }
  });

  test('errors: an unknown tool and an unknown resource are -32602 (2026-07-28 rule), HTTP 400', async () => {
    const { client } = shared;
    const tool = await within(client.callTool({ name: 'no_such_tool' }).catch((error: unknown) => error));
    expect(tool).toBeInstanceOf(ProtocolError);
    const resource = await within(
      client.readResource({ uri: 'test://nope' }).catch((error: unknown) => error),
    );
    expect(resource).toBeInstanceOf(ProtocolError);
    // The code Keel put on the wire (the client maps a legacy -32002 to -32602 itself, so its error
    // object alone would not tell).
    const errors = (shared.received as { error?: { code: number; data?: unknown } }[]).flatMap((m) =>
      m.error ? [m.error] : [],
    );
    expect(errors.map((error) => error.code)).toEqual([-32602, -32602]);
    expect(errors[1]!.data).toMatchObject({ uri: 'test://nope' });
    if (http) {
      const calls = shared.http.filter((call) => (call.body as Sent).method !== 'server/discover');
      expect(calls.map((call) => call.status)).toEqual([400, 400]);
    }
  });

  test('resources: list, templates, read text, binary and a template', async () => {
    const { client } = shared;
    const { resources } = await within(client.listResources());
    expect(resources.map((resource) => resource.uri)).toEqual(FIXTURE_RESOURCES);
    const { resourceTemplates } = await within(client.listResourceTemplates());
    expect(resourceTemplates.map((template) => template.uriTemplate)).toEqual([FIXTURE_TEMPLATE]);
    expect((await within(client.readResource({ uri: 'test://static-text' }))).contents).toEqual([
      { uri: 'test://static-text', mimeType: 'text/plain', text: TEXTS.staticText },
    ]);
    expect((await within(client.readResource({ uri: 'test://static-binary' }))).contents).toEqual([
      { uri: 'test://static-binary', mimeType: 'image/png', blob: expect.any(String) },
    ]);
    expect((await within(client.readResource({ uri: 'test://template/123/data' }))).contents).toEqual([
      { uri: 'test://template/123/data', mimeType: 'application/json', text: TEXTS.template123 },
    ]);
  });

  test('prompts: list, get with arguments; completion of a prompt argument and a template variable', async () => {
    const { client } = shared;
    const { prompts } = await within(client.listPrompts());
    expect(prompts.map((prompt) => prompt.name)).toEqual(FIXTURE_PROMPTS);
    expect((await within(client.getPrompt({ name: 'test_simple_prompt' }))).messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } },
    ]);
    const withArgs = await within(
      client.getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg1: 'x', arg2: 'y' } }),
    );
    expect(withArgs.messages[0]!.content).toEqual({
      type: 'text',
      text: "Prompt with arguments: arg1='x', arg2='y'",
    });
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

  test('logging: only a request that sets a level gets log messages, at or above it', async () => {
    const { client } = shared;
    const call = (level?: string) =>
      within(
        client.callTool({
          name: 'test_tool_with_logging',
          ...(level === undefined ? {} : { _meta: { [LOG_LEVEL]: level } }),
        }),
      );
    expect(firstText(await call())).toBe('Logging tool finished');
    expect(shared.logs).toEqual([]);
    await call('error');
    expect(shared.logs).toEqual([]);
    await call('info');
    expect(shared.logs.map((log) => log.data)).toEqual(TEXTS.logs);
    expect(shared.logs.every((log) => log.level === 'info')).toBe(true);
  });

  test('progress: Keel sends 0, 50, 100 of 100 before the result; the caller gets them', async () => {
    const { client } = shared;
    const progress: { progress: number; total?: number | undefined }[] = [];
    const result = await within(
      client.callTool({ name: 'test_tool_with_progress' }, { onprogress: (p) => void progress.push(p) }),
    );
    expect(firstText(result)).toBe('Progress tool finished');
    const onWire = (
      shared.received as { method?: string; params?: { progress: number; total?: number } }[]
    ).map((m) =>
      m.method === 'notifications/progress' ? m.params!.progress : 'result' in m ? 'result' : m.method,
    );
    expect(onWire).toEqual([0, 50, 100, 'result']);
    const expected = [
      { progress: 0, total: 100 },
      { progress: 50, total: 100 },
      { progress: 100, total: 100 },
    ];
    if (http) {
      expect(progress).toEqual(expected);
      return;
    }
    // Official client bug (2.4.0, any era, stdio): Protocol._onnotification defers every
    // notification handler to a microtask (`Promise.resolve().then(...)`) while _onresponse runs at
    // once and drops the request's progress handler, so progress read in one chunk with the
    // result is lost. Keel writes the result 10 ms after the progress (issue 23 item 2), so they
    // share a read only when the client was not scheduled meanwhile (covered, with the stall told
    // apart, by test/stdio/official-client-progress.test.ts).
    expect(progress).toEqual(expected.slice(0, progress.length));
    expect(progress.length).toBeGreaterThanOrEqual(1);
  });

  test('cancellation: aborting a call ends the handler, and the connection serves the next call', async () => {
    const v2 = shared;
    const abort = new AbortController();
    const call = v2.client
      .callTool({ name: 'e2e_block' }, { signal: abort.signal })
      .catch((error: unknown) => error);
    await v2.probes.nth('started');
    abort.abort(new Error('caller gave up'));
    expect(await within(call)).toBeInstanceOf(Error);
    // HTTP: the client closes the request's stream; stdio: it sends notifications/cancelled. Keel
    // treats both as the client's cancel.
    const aborted = await v2.probes.nth('aborted');
    expect(aborted.reason).toBe('CancelledByPeerError');
    if (!http) {
      const cancelled = (v2.sent as Sent[]).filter((m) => m.method === 'notifications/cancelled');
      expect(cancelled).toHaveLength(1);
      expect(cancelled[0]!.params?.requestId).toBe((callsOf(v2, 'e2e_block')[0] as { id?: unknown }).id);
    }
    expect(firstText(await within(v2.client.callTool({ name: 'test_simple_text' })))).toBe(TEXTS.simple);
    expect(v2.probes.events.filter((event) => event.event === 'aborted')).toHaveLength(1);
  });

  test('input_required: elicitation, sampling and roots, one key per round', async () => {
    const v2 = shared;
    const { client } = v2;
    expect(firstText(await within(client.callTool({ name: 'test_input_required_result_elicitation' })))).toBe(
      'Hello, Ada!',
    );
    expect(v2.elicited).toEqual([
      expect.objectContaining({
        mode: 'form',
        message: 'What is your name?',
        requestedSchema: expect.any(Object),
      }),
    ]);
    expect(firstText(await within(client.callTool({ name: 'test_input_required_result_sampling' })))).toBe(
      `Sampling response: ${SAMPLING_REPLY}`,
    );
    expect(v2.sampled).toEqual([
      expect.objectContaining({
        messages: [{ role: 'user', content: { type: 'text', text: 'What is the capital of France?' } }],
        maxTokens: 100,
      }),
    ]);
    expect(firstText(await within(client.callTool({ name: 'test_input_required_result_list_roots' })))).toBe(
      `Roots: ${ROOTS[0]!.uri}`,
    );
    expect(v2.rootsAsked).toBe(1);

    // Each was one round: the call, then one retry with the answer under the key and the state.
    for (const [name, key] of [
      ['test_input_required_result_elicitation', 'user_name'],
      ['test_input_required_result_sampling', 'capital_question'],
      ['test_input_required_result_list_roots', 'client_roots'],
    ] as const) {
      const calls = callsOf(v2, name);
      expect(calls, name).toHaveLength(2);
      expect(calls[0]!.params?.inputResponses).toBeUndefined();
      expect(Object.keys(calls[1]!.params?.inputResponses as object)).toEqual([key]);
      expect(calls[1]!.params?.requestState).toEqual(expect.any(String));
    }
  });

  test('input_required: several inputs in one round, two rounds, state, capabilities, a prompt', async () => {
    const v2 = shared;
    const { client } = v2;
    const multiple = await within(client.callTool({ name: 'test_input_required_result_multiple_inputs' }));
    expect(firstText(multiple)).toBe(`${SAMPLING_REPLY} Ada (1 roots)`);
    const multipleCalls = callsOf(v2, 'test_input_required_result_multiple_inputs');
    expect(multipleCalls).toHaveLength(2);
    expect(Object.keys(multipleCalls[1]!.params?.inputResponses as object).sort()).toEqual([
      'client_roots',
      'greeting',
      'user_name',
    ]);

    const rounds = await within(client.callTool({ name: 'test_input_required_result_multi_round' }));
    expect(firstText(rounds)).toBe('Ada likes teal');
    expect(callsOf(v2, 'test_input_required_result_multi_round')).toHaveLength(3);

    const state = await within(client.callTool({ name: 'test_input_required_result_request_state' }));
    expect(firstText(state)).toBe('state-ok: action=accept, ok=true');
    const capabilities = await within(client.callTool({ name: 'test_input_required_result_capabilities' }));
    expect(firstText(capabilities)).toBe(`${SAMPLING_REPLY}; accept; 1 roots`);

    const prompt = await within(client.getPrompt({ name: 'test_input_required_result_prompt' }));
    expect(prompt.messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'Write with this context: interop' } },
    ]);
  });

  test('the legacy back-channel tools run unchanged as input_required rounds', async () => {
    const v2 = shared;
    const { client } = v2;
    const sampling = await within(
      client.callTool({ name: 'test_sampling', arguments: { prompt: SAMPLING_PROMPT } }),
    );
    expect(firstText(sampling)).toBe(SAMPLED_TEXT);
    const elicitation = await within(
      client.callTool({ name: 'test_elicitation', arguments: { message: 'Who are you?' } }),
    );
    expect(firstText(elicitation)).toBe(ELICITED_TEXT);
    // The client applies the form's defaults to an empty accept (applyDefaults) in this era too.
    const defaults = await within(client.callTool({ name: 'test_elicitation_sep1034_defaults' }));
    expect(firstText(defaults)).toBe(
      `Elicitation finished: action=accept, content=${JSON.stringify(SEP1034_DEFAULTS)}`,
    );
    const streaming = await within(client.callTool({ name: 'test_streaming_elicitation' }));
    expect(firstText(streaming)).toBe('Elicitation: accept');
    expect(v2.sent.some((message) => 'result' in message)).toBe(false); // never answered a server request
  });
  test('subscriptions/listen: acknowledged, a tools/list_changed arrives, close() ends it', async () => {
    const { client } = shared;
    let changed!: () => void;
    const arrived = new Promise<void>((resolve) => (changed = resolve));
    const seen: unknown[] = [];
    client.setNotificationHandler('notifications/tools/list_changed', (notification) => {
      seen.push(notification);
      changed();
    });
    const subscription = await within(client.listen({ toolsListChanged: true }));
    expect(subscription.honoredFilter).toEqual({ toolsListChanged: true });
    expect(firstText(await within(client.callTool({ name: 'e2e_grow' })))).toMatch(/^grown_\d+$/);
    await within(arrived, 5_000, 'tools/list_changed on the listen');
    expect(seen).toHaveLength(1);
    await within(subscription.close());
    expect(await within(subscription.closed)).toBe('local');
    const listens = requests(shared).filter((message) => message.method === 'subscriptions/listen');
    expect(listens).toHaveLength(1);
    expect(listens[0]!.params?.notifications).toEqual({ toolsListChanged: true });
  });
});
