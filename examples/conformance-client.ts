/**
 * The conformance fixture client. The official suite (`npx conformance client --command "node
 * dist/examples/conformance-client.js"`) starts a mock server per scenario and runs
 * `<command> <serverUrl>` with `MCP_CONFORMANCE_SCENARIO=<name>`; this program does what the
 * scenario expects and exits 0, or exits 1 with the reason on stderr. stdout stays empty.
 */
import { McpClient, type McpClientOptions } from '../src/client/index.js';
// The client half only: the suite starts ~26 clients at once on the same machine, and sse-retry is
// timed, so this process loads no server code it does not need.
import { StreamableHttpClientTransport } from '../src/transports/http/client/index.js';
import { conformanceAuth } from './conformance-auth.js';
import { machineConformanceAuth } from './conformance-auth-machine.js';
import { declareAuthExtensions } from '../src/client/auth/machine/extensions.js';
import { skillScenarios } from './conformance-skills.js';

interface Scenario {
  options?: McpClientOptions;
  run: (client: McpClient) => Promise<void>;
}

/** Every call is bounded, so a stuck scenario fails with a message rather than the runner's timeout. */
const CALL_TIMEOUT_MS = 20_000;

function log(message: string, detail?: unknown): void {
  process.stderr.write(
    `[conformance-client] ${message}${detail === undefined ? '' : ` ${JSON.stringify(detail)}`}\n`,
  );
}

async function listTools(client: McpClient): Promise<string[]> {
  const names = (await client.listAllTools({ timeoutMs: CALL_TIMEOUT_MS })).map((tool) => tool.name);
  log('tools', names);
  return names;
}

async function callNamedTool(
  client: McpClient,
  name: string,
  args: Record<string, unknown> = {},
): Promise<void> {
  const names = await listTools(client);
  if (!names.includes(name)) throw new Error(`The server does not list tool ${name}`);
  const result = await client.callTool(name, args, { timeoutMs: CALL_TIMEOUT_MS });
  log(`${name} result`, result);
}

const scenarios: Record<string, Scenario> = {
  // Handshake (the mock checks protocolVersion and clientInfo), then list tools.
  initialize: { run: async (client) => void (await listTools(client)) },
  tools_call: { run: (client) => callNamedTool(client, 'add_numbers', { a: 5, b: 3 }) },
  // SEP-1034: accept with empty content; the client fills in every schema default.
  'elicitation-sep1034-client-defaults': {
    options: {
      elicitation: {
        applyDefaults: true,
        form: (params) => {
          log('elicitation', params);
          return { action: 'accept', content: {} };
        },
      },
    },
    run: (client) => callNamedTool(client, 'test_client_elicitation_defaults'),
  },
  // The tool's SSE stream closes mid-call; the transport resumes it with GET + Last-Event-ID
  // after the server's `retry` delay and the result arrives there.
  'sse-retry': { run: (client) => callNamedTool(client, 'test_reconnection') },
};

/** Test data some scenarios hand the client (`MCP_CONFORMANCE_CONTEXT`, JSON). */
interface ScenarioContext {
  toolCalls?: { name: string; arguments?: Record<string, unknown> }[];
  [key: string]: unknown;
}

function scenarioContext(): ScenarioContext {
  const raw = process.env.MCP_CONFORMANCE_CONTEXT;
  if (!raw) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new Error('MCP_CONFORMANCE_CONTEXT is not JSON');
  }
  return typeof parsed === 'object' && parsed !== null ? (parsed as ScenarioContext) : {};
}

/** Calls every tool the client kept from `tools/list` (it leaves out tools it must not call). */
async function callEveryListedTool(client: McpClient, args: Record<string, unknown>): Promise<void> {
  for (const tool of await client.listAllTools({ timeoutMs: CALL_TIMEOUT_MS })) {
    const result = await client.callTool(tool.name, args, { timeoutMs: CALL_TIMEOUT_MS });
    log(`${tool.name} result`, result);
  }
}

/** One request of each kind that carries `Mcp-Name`, where the server offers it. */
async function touchEveryList(client: McpClient): Promise<void> {
  await callEveryListedTool(client, {});
  const capabilities = client.serverCapabilities ?? {};
  if (capabilities.resources) {
    const [first] = await client.listAllResources({ timeoutMs: CALL_TIMEOUT_MS });
    if (first) log('read', await client.readResource(first.uri, { timeoutMs: CALL_TIMEOUT_MS }));
  }
  if (capabilities.prompts) {
    const [first] = await client.listAllPrompts({ timeoutMs: CALL_TIMEOUT_MS });
    if (first) log('prompt', await client.getPrompt(first.name, {}, { timeoutMs: CALL_TIMEOUT_MS }));
  }
}

/** 2026-07-28 scenarios (suite 0.2.0-alpha.12, `--spec-version 2026-07-28`). */
const modernScenarios: Record<string, Scenario> = {
  // The mock answers each tool with input_required (an elicitation) first; the client's loop
  // answers it with this handler and retries, invisibly to the caller.
  'sep-2322-client-request-state': {
    options: { elicitation: { form: () => ({ action: 'accept', content: { confirmed: true } }) } },
    run: async (client) => {
      const names = await listTools(client);
      for (const name of names) {
        log(`${name} result`, await client.callTool(name, {}, { timeoutMs: CALL_TIMEOUT_MS }));
      }
    },
  },
  'http-standard-headers': { run: touchEveryList },
  // The values to send come from the scenario's context (encoding edge cases).
  'http-custom-headers': {
    run: async (client) => {
      await listTools(client);
      for (const call of scenarioContext().toolCalls ?? []) {
        const result = await client.callTool(call.name, call.arguments ?? {}, { timeoutMs: CALL_TIMEOUT_MS });
        log(`${call.name} result`, result);
      }
    },
  },
  // Tools with invalid x-mcp-header annotations are left out of the list by the client.
  'http-invalid-tool-headers': { run: (client) => callEveryListedTool(client, { region: 'us-west1' }) },
  // Round-trip the focal tool's inputSchema, untouched, through the echo tool.
  'json-schema-2020-12-preservation': {
    run: async (client) => {
      const tools = await client.listAllTools({ timeoutMs: CALL_TIMEOUT_MS });
      const focal = tools.find((tool) => tool.name === 'json_schema_2020_12_tool');
      if (!focal) throw new Error('The server does not list json_schema_2020_12_tool');
      const result = await client.callTool(
        'json_schema_echo',
        { schema: focal.inputSchema },
        { timeoutMs: CALL_TIMEOUT_MS },
      );
      log('echo result', result);
    },
  },
};
Object.assign(scenarios, modernScenarios, skillScenarios);

/** Unknown scenarios get the generic client: connect, list tools, close. */
const fallback: Scenario = { run: async (client) => void (await listTools(client)) };

/** OAuth scenarios: list and call every tool (step-up scenarios guard tools/call with more scope). */
const authorized: Scenario = { run: (client) => callEveryListedTool(client, {}) };

async function main(): Promise<number> {
  const scenario = process.env.MCP_CONFORMANCE_SCENARIO;
  const serverUrl = process.argv.at(-1);
  if (!scenario || !serverUrl || process.argv.length < 3) {
    log('usage: MCP_CONFORMANCE_SCENARIO=<scenario> conformance-client <server-url>');
    log(`known scenarios: ${Object.keys(scenarios).join(', ')}`);
    return 2;
  }
  const oauth = scenario.startsWith('auth/');
  const auth =
    machineConformanceAuth(scenario, scenarioContext()) ?? conformanceAuth(scenario, scenarioContext());
  const entry = scenarios[scenario];
  if (!entry && !oauth) log(`scenario ${scenario} is not known; running the generic client`);
  const { options, run } = entry ?? (auth ? authorized : fallback);
  const client = new McpClient({ name: 'keel-conformance-client', version: '0.1.0' }, options);
  if (auth) declareAuthExtensions(client, auth);
  try {
    await client.connect(new StreamableHttpClientTransport(serverUrl, auth ? { auth } : {}), {
      timeoutMs: CALL_TIMEOUT_MS,
    });
    log(`connected to ${client.serverInfo?.name ?? 'server'} (${client.protocolVersion ?? '?'})`);
    await run(client);
    return 0;
  } finally {
    await client.close();
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    log(`failed: ${describe(error)}`);
    process.exit(1);
  },
);
