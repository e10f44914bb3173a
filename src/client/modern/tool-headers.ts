/**
 * Per tool, the parameters a 2026-07-28 client mirrors as `Mcp-Param-*` headers, learned from
 * `tools/list`; tools whose `x-mcp-header` annotations are invalid are left out of the list with
 * one warning each (spec: server/tools "x-mcp-header": reject the tool, keep the others usable).
 */
import { ErrorCode, McpError } from '../../core/errors.js';
import type { JsonObject } from '../../core/jsonrpc.js';
import type { Tool } from '../../core/types/tools.js';
import { mirroredParams, paramHeaders, type MirroredParam } from './param-headers.js';

/**
 * The header map of one client.
 *
 * @example
 * const map = new ToolHeaderMap();
 * const tools = map.admit(page.tools, true, (message) => logger.error(message));
 * const headers = map.headersFor('execute_sql', { region: 'us-west1', query: '…' });
 */
export class ToolHeaderMap {
  private readonly byTool = new Map<string, readonly MirroredParam[]>();

  /**
   * The tools of one `tools/list` page that may be used; remembers their mirrored parameters.
   * `fresh` (a first page) forgets what earlier listings said.
   */
  admit(tools: readonly Tool[], fresh: boolean, warn: (message: string) => void): Tool[] {
    if (fresh) this.byTool.clear();
    const admitted: Tool[] = [];
    for (const tool of tools) {
      const found = mirroredParams(tool.inputSchema);
      if (!found.ok) {
        warn(`tools/list: left out tool ${JSON.stringify(tool.name)}: ${found.reason}`);
        this.byTool.delete(tool.name);
        continue;
      }
      if (found.params.length > 0) this.byTool.set(tool.name, found.params);
      else this.byTool.delete(tool.name);
      admitted.push(tool);
    }
    return admitted;
  }

  /** The `Mcp-Param-*` headers of a call, or undefined when the tool mirrors nothing (or is unknown). */
  headersFor(name: string, args: JsonObject | undefined): Record<string, string> | undefined {
    const params = this.byTool.get(name);
    if (params === undefined) return undefined;
    const headers = paramHeaders(params, args);
    return Object.keys(headers).length === 0 ? undefined : headers;
  }

  clear(): void {
    this.byTool.clear();
  }
}

/**
 * Send a 2026-07-28 `tools/call` with the tool's `Mcp-Param-*` headers (merged over the caller's
 * own). A `-32020` HeaderMismatch means our header map is stale (spec: Client Behavior): re-list
 * the tools and retry once; a second `-32020` is the caller's.
 *
 * @example
 * const raw = await callWithParamHeaders(map, (o) => client.request('tools/call', params, o), relist, 'execute_sql', args, options);
 */
export async function callWithParamHeaders<
  O extends { headers?: Readonly<Record<string, string>> | undefined },
>(
  map: ToolHeaderMap,
  send: (options: O) => Promise<JsonObject>,
  relist: () => Promise<void>,
  name: string,
  args: JsonObject | undefined,
  options: O,
): Promise<JsonObject> {
  const attempt = (): Promise<JsonObject> => {
    const headers = map.headersFor(name, args);
    return send(
      headers === undefined ? options : { ...options, headers: { ...options.headers, ...headers } },
    );
  };
  try {
    return await attempt();
  } catch (error) {
    if (!(error instanceof McpError) || error.code !== ErrorCode.HeaderMismatch) throw error;
    await relist();
    return attempt();
  }
}
