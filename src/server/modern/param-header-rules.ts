/**
 * `x-mcp-header` annotations checked when a tool is registered. A client over HTTP must drop a
 * tool that breaks a 2026-07-28 rule from `tools/list`, so a server that published one would have
 * a tool nobody can call: Keel refuses it here, naming the tool, the property and the rule. The
 * rules themselves live in src/core/param-header-rules.ts, shared with the client, so a tool the
 * server accepts is never one the client drops.
 */
import type { JsonObject } from '../../core/jsonrpc.js';
import { scanParamHeaders } from '../../core/param-header-rules.js';

/**
 * Throw if the tool's input schema has an `x-mcp-header` annotation 2026-07-28 calls invalid (see
 * {@link scanParamHeaders}): a value that is not a non-empty HTTP token, two values equal ignoring
 * case, an annotated parameter that does not declare `type` string, integer or boolean, or an
 * annotation not reached from the root through `properties` alone.
 *
 * @example
 * checkParamHeaderAnnotations('execute_sql', {
 *   type: 'object',
 *   properties: { region: { type: 'string', 'x-mcp-header': 'Region' } },
 * }); // fine; with `type: 'number'` it throws, naming the tool, "region" and the rule
 */
export function checkParamHeaderAnnotations(tool: string, schema: JsonObject): void {
  const scan = scanParamHeaders(schema);
  if (!scan.ok) throw new Error(`Tool "${tool}": ${scan.reason}`);
}
