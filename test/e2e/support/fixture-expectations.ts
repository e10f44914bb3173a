/**
 * What the conformance fixture (examples/fixture-server.ts, conformance-fixture.md §4) exposes and
 * answers, and the canned client-side answers the e2e clients give to its sampling and elicitation
 * requests. Shared by the official-client and the Keel-client suites so both check the same facts.
 */

export const FIXTURE_TOOLS = [
  'test_simple_text',
  'test_image_content',
  'test_audio_content',
  'test_embedded_resource',
  'test_multiple_content_types',
  'test_error_handling',
  'json_schema_2020_12_tool',
  'test_tool_with_logging',
  'test_tool_with_progress',
  'test_sampling',
  'test_elicitation',
  'test_elicitation_sep1034_defaults',
  'test_elicitation_sep1330_enums',
  'test_reconnection',
  // 2026-07-28 multi round-trip scenarios (examples/fixture/input-required-tools.ts)
  'test_input_required_result_elicitation',
  'test_input_required_result_sampling',
  'test_input_required_result_list_roots',
  'test_input_required_result_request_state',
  'test_input_required_result_multiple_inputs',
  'test_input_required_result_multi_round',
  'test_input_required_result_tampered_state',
  'test_input_required_result_capabilities',
  // 2026-07-28 server-stateless diagnostics (examples/fixture/diagnostic-tools.ts)
  'test_missing_capability',
  'test_streaming_elicitation',
  'test_logging_tool',
  // 2026-07-28 x-mcp-header (Mcp-Param-*) server validation
  'test_param_header',
  // 2026-07-28 subscriptions/listen mutation hooks (examples/fixture/diagnostic-tools.ts)
  'test_trigger_tool_change',
  'test_trigger_prompt_change',
  // The tasks extension (SEP-2663) scenarios (examples/fixture/task-tools.ts)
  'greet',
  'slow_compute',
  'failing_job',
  'protocol_error_job',
  'confirm_delete',
  'multi_input',
  'test_tool_with_task',
] as const;

export const FIXTURE_RESOURCES = [
  'test://static-text',
  'test://static-binary',
  'test://watched-resource',
  // The fixture's skills (examples/fixture/skills.ts): every file of a skill is a resource.
  'skill://pdf-processing/SKILL.md',
  'skill://pdf-processing/references/FORMS.md',
  'skill://pdf-processing/scripts/fill.py',
  'skill://acme/billing/refunds/SKILL.md',
];
export const FIXTURE_TEMPLATE = 'test://template/{id}/data';
export const FIXTURE_PROMPTS = [
  'test_simple_prompt',
  'test_prompt_with_arguments',
  'test_prompt_with_embedded_resource',
  'test_prompt_with_image',
  'test_input_required_result_prompt',
];

/** The fixture's fixed tool texts. */
export const TEXTS = {
  simple: 'This is a simple text response for testing.',
  error: 'This tool intentionally returns an error for testing',
  embedded: 'This is an embedded resource content.',
  staticText: 'This is the content of the static text resource.',
  template123: '{"id":"123","templateTest":true,"data":"Data for ID: 123"}',
  logs: ['Tool execution started', 'Tool processing data', 'Tool execution completed'],
} as const;

/** What every e2e client's sampling handler answers, and what test_sampling must make of it. */
export const SAMPLING_REPLY = 'forty-two';
export const SAMPLING_PROMPT = 'What is 6×7?';
export const SAMPLED_TEXT = `LLM response: ${SAMPLING_REPLY}`;

/** What every e2e client's elicitation handler answers to test_elicitation. */
export const ELICITED_CONTENT = { username: 'ada', email: 'ada@example.com' };
export const ELICITED_TEXT = `User response: action=accept, content=${JSON.stringify(ELICITED_CONTENT)}`;

/** The SEP-1034 defaults test_elicitation_sep1034_defaults asks with (and gets back when accepted empty). */
export const SEP1034_DEFAULTS = {
  name: 'John Doe',
  age: 30,
  score: 95.5,
  status: 'active',
  verified: true,
};

export const SEP1330_FIELDS = [
  'untitledSingle',
  'titledSingle',
  'legacyEnum',
  'untitledMulti',
  'titledMulti',
];

/**
 * The elicitation answer both e2e clients give: the username/email form is filled in, the
 * SEP-1034 form is accepted empty (defaults apply where the client applies them), anything else
 * (the SEP-1330 enum form) is declined.
 */
export function elicitationAnswer(requestedSchema: unknown): {
  action: 'accept' | 'decline';
  content?: Record<string, string>;
} {
  const properties = (requestedSchema as { properties?: Record<string, unknown> }).properties ?? {};
  if ('username' in properties) return { action: 'accept', content: { ...ELICITED_CONTENT } };
  if ('verified' in properties) return { action: 'accept', content: {} };
  return { action: 'decline' };
}

/** The text of the first text block of a tool result (or ''). */
export function firstText(result: object): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  return content.find((block) => block.type === 'text')?.text ?? '';
}

/** The content block types of a tool result or prompt, in order. */
export function blockTypes(result: object): string[] {
  return ((result as { content?: { type: string }[] }).content ?? []).map((block) => block.type);
}
