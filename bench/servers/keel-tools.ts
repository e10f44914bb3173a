/**
 * The benchmark's tools on Keel's high-level `McpServer`, written the way a user would: `echo`,
 * `wait_sampling`, and `echo_task` — `echo` that may run as a task (issue 25), registered on every
 * Keel bench server, so that the plain-call rows are measured on a server that also has a task
 * tool, as a real one would.
 *
 * Input schemas are raw JSON Schema, which Keel takes as a first-class input (advertised as given,
 * every call's arguments validated against it). No schema library is loaded: zod alone costs
 * ~58 ms of start-up, and a Keel server does not need one. The official SDK servers use zod,
 * which is how those SDKs take tool schemas; `keel-zod-tools.ts` is the same server with zod, for
 * the like-for-like rows.
 */
import { McpServer } from 'keel-mcp/server';
import type { SchemaInput, TaskOptions } from 'keel-mcp/server';

const echoInput = {
  type: 'object',
  properties: { text: { type: 'string' } },
  required: ['text'],
};
const samplingInput = {
  type: 'object',
  properties: { prompt: { type: 'string' } },
  required: ['prompt'],
};

/**
 * Task bounds of the bench servers. The load generator creates thousands of tasks a second, and a
 * task store holds every record until its TTL (1 h by default) against `maxTotal` (10,000), so
 * the defaults would refuse new tasks within seconds (`-32010`). Records are kept 2 s here, long
 * past the `tasks/get` that reads the result (a round trip takes milliseconds), and the bounds are
 * raised past what 2 s of load can hold. The store, result cap, poll hint and lease are Keel's
 * defaults.
 */
export const BENCH_TASK_OPTIONS: TaskOptions = {
  defaultTtlMs: 2_000,
  maxPerOwner: 1_000_000,
  maxTotal: 1_000_000,
};

/**
 * Registers `echo`, `wait_sampling` and `echo_task` (`echo` with `taskSupport: 'optional'`: a
 * task when the request declares the tasks extension, a plain call otherwise) with the given input
 * schemas (any schema Keel accepts).
 *
 * @example
 * registerBenchTools(new McpServer({ name: 'x', version: '1' }), z.object({ text: z.string() }), z.object({ prompt: z.string() }));
 */
export function registerBenchTools(server: McpServer, echo: SchemaInput, sampling: SchemaInput): McpServer {
  server.tool('echo', { description: 'Returns its input text', input: echo }, (args) =>
    String((args as { text: unknown }).text),
  );
  server.tool(
    'wait_sampling',
    { description: 'Asks the client to sample a prompt', input: sampling },
    async (args, ctx) => {
      const sampled = await ctx.createMessage({
        messages: [
          { role: 'user', content: { type: 'text', text: String((args as { prompt: unknown }).prompt) } },
        ],
        maxTokens: 64,
      });
      const content = Array.isArray(sampled.content) ? sampled.content[0] : sampled.content;
      return content?.type === 'text' ? content.text : '';
    },
  );
  server.tool(
    'echo_task',
    {
      description: 'Returns its input text; runs as a task when the client takes tasks',
      input: echo,
      execution: { taskSupport: 'optional' },
    },
    (args) => String((args as { text: unknown }).text),
  );
  return server;
}

/**
 * @example
 * await serveStdio(createBenchServer());
 */
export function createBenchServer(): McpServer {
  return registerBenchTools(
    new McpServer({ name: 'bench-keel', version: '1.0.0' }, { tasks: BENCH_TASK_OPTIONS }),
    echoInput,
    samplingInput,
  );
}
