/**
 * The benchmark's tools on Keel with zod 4 input schemas — what the official SDK servers use — so
 * that Keel and the official SDKs can be compared with the same schema library. Keel takes zod as
 * a Standard Schema: it converts it to JSON Schema once at registration (for `tools/list`) and
 * validates every call's arguments with zod itself. `echo` and `echo_task` share the one zod schema.
 */
import * as z from 'zod';
import { McpServer } from 'keel-mcp/server';
import { BENCH_TASK_OPTIONS, registerBenchTools } from './keel-tools.js';

/**
 * @example
 * await serveStdio(createZodBenchServer());
 */
export function createZodBenchServer(): McpServer {
  return registerBenchTools(
    new McpServer({ name: 'bench-keel-zod', version: '1.0.0' }, { tasks: BENCH_TASK_OPTIONS }),
    z.object({ text: z.string() }),
    z.object({ prompt: z.string() }),
  );
}
