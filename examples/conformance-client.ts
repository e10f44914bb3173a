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

/** Unknown scenarios get the generic client: connect, list tools, close. */
const fallback: Scenario = { run: async (client) => void (await listTools(client)) };

async function main(): Promise<number> {
  const scenario = process.env.MCP_CONFORMANCE_SCENARIO;
  const serverUrl = process.argv.at(-1);
  if (!scenario || !serverUrl || process.argv.length < 3) {
    log('usage: MCP_CONFORMANCE_SCENARIO=<scenario> conformance-client <server-url>');
    log(`known scenarios: ${Object.keys(scenarios).join(', ')}`);
    return 2;
  }
  const oauth = scenario.startsWith('auth/');
  const entry = scenarios[scenario];
  if (!entry && !oauth) log(`scenario ${scenario} is not known; running the generic client`);
  const { options, run } = entry ?? fallback;
  const client = new McpClient({ name: 'keel-conformance-client', version: '0.1.0' }, options);
  try {
    await client.connect(new StreamableHttpClientTransport(serverUrl), { timeoutMs: CALL_TIMEOUT_MS });
    log(`connected to ${client.serverInfo?.name ?? 'server'} (${client.protocolVersion ?? '?'})`);
    await run(client);
    return 0;
  } catch (error) {
    // Keel has no OAuth client yet: an authorization scenario ends at the server's first 401.
    if (oauth) {
      throw new Error(`OAuth client flows are not implemented in Keel yet (${describe(error)})`, {
        cause: error,
      });
    }
    throw error;
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
