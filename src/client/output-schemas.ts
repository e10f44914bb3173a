/**
 * Remembers each tool's `outputSchema` from `tools/list` and checks `tools/call` results against
 * it (the spec: clients SHOULD validate structured results). Schemas are compiled on the first
 * call of their tool, not when listed, so listing many tools stays cheap.
 */
import { isJsonObject, type JsonObject } from '../core/jsonrpc.js';
import type { CallToolResult, Tool } from '../core/types/tools.js';
import { ToolOutputValidationError } from './errors.js';
import {
  defaultJsonSchemaValidator,
  type CompiledSchema,
  type JsonSchemaValidator,
} from './json-schema-validator.js';

interface Entry {
  schema: JsonObject;
  compiled?: CompiledSchema;
}

/**
 * @example
 * const cache = new OutputSchemaCache();
 * cache.remember(tools, true);
 * await cache.check('forecast', result); // throws ToolOutputValidationError when it does not match
 */
export class OutputSchemaCache {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly validator: JsonSchemaValidator = defaultJsonSchemaValidator) {}

  /** Record a page of `tools/list`; `firstPage` forgets what earlier listings said. */
  remember(tools: readonly Tool[], firstPage: boolean): void {
    if (firstPage) this.entries.clear();
    for (const tool of tools) {
      if (isJsonObject(tool.outputSchema)) this.entries.set(tool.name, { schema: tool.outputSchema });
      else this.entries.delete(tool.name);
    }
  }

  /** Forget everything (the tool list changed). */
  clear(): void {
    this.entries.clear();
  }

  /** The cached schema of `name`, if any. */
  schemaOf(name: string): JsonObject | undefined {
    return this.entries.get(name)?.schema;
  }

  /**
   * Throw {@link ToolOutputValidationError} when a tool with a known `outputSchema` returned no
   * `structuredContent` or content that does not match. Tool errors (`isError`) are not checked.
   */
  async check(name: string, result: CallToolResult): Promise<void> {
    const entry = this.entries.get(name);
    if (!entry || result.isError === true) return;
    if (!isJsonObject(result.structuredContent)) {
      throw new ToolOutputValidationError(
        name,
        `Tool ${name} has an output schema but returned no structuredContent`,
        ['/: structuredContent is missing'],
        result,
      );
    }
    let compiled = entry.compiled;
    if (!compiled) {
      try {
        compiled = this.validator.compile(entry.schema);
      } catch (error) {
        throw new ToolOutputValidationError(
          name,
          `Tool ${name} has an output schema that cannot be compiled: ${errorText(error)}`,
          [errorText(error)],
          result,
        );
      }
      // Compiled against the entry it came from: a re-list in the meantime replaced the entry.
      entry.compiled = compiled;
    }
    let issues: string[];
    try {
      issues = compiled(result.structuredContent);
    } catch (error) {
      throw new ToolOutputValidationError(
        name,
        `Tool ${name} has an output schema that cannot be applied: ${errorText(error)}`,
        [errorText(error)],
        result,
      );
    }
    if (issues.length > 0) {
      throw new ToolOutputValidationError(
        name,
        `Tool ${name} returned structuredContent that does not match its output schema: ${issues.join('; ')}`,
        issues,
        result,
      );
    }
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
