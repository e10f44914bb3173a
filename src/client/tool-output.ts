/**
 * `callTool(name, args, { output: schema })`: the caller's own Standard Schema (zod 4, valibot,
 * arktype, ...) for a tool's `structuredContent`, checked on arrival and typed by what the schema
 * outputs. Keel depends on the Standard Schema contract only, not on any schema library.
 */
import type {
  InferOutput,
  StandardIssue,
  StandardResult,
  StandardSchema,
} from '../core/schema/standard-schema.js';
import { isStandardSchema } from '../core/schema/standard-schema.js';
import type { CallToolResult } from '../core/types/tools.js';
import type { CallToolOptions } from './call-options.js';
import { ToolOutputValidationError } from './errors.js';

/**
 * The options of a `callTool` that validates `structuredContent` with `output`.
 *
 * @example
 * const options: CallToolOutputOptions<typeof Forecast> = { output: Forecast, timeoutMs: 10_000 };
 */
export interface CallToolOutputOptions<O extends StandardSchema<any, any>> extends CallToolOptions {
  /**
   * A Standard Schema for `structuredContent`. Always applied (whatever `validateOutput` says) to
   * a result that is not a tool error; `structuredContent` is then the schema's output.
   */
  output: O;
}

/**
 * The result of `callTool(name, args, { output })`: either the tool succeeded and
 * `structuredContent` is the schema's output, or the tool reported an error (`isError: true`),
 * which is not validated: by the spec it carries no structured output. Check `isError` first.
 *
 * @example
 * const result = await client.callTool('forecast', { city: 'Oslo' }, { output: Forecast });
 * if (result.isError) console.error(result.content);
 * else console.log(result.structuredContent.tempC);
 */
export type ValidatedCallToolResult<O extends StandardSchema<any, any>> =
  | (Omit<CallToolResult, 'isError' | 'structuredContent'> & {
      isError?: false;
      structuredContent: InferOutput<O>;
    })
  | (Omit<CallToolResult, 'isError'> & { isError: true });

/**
 * Throw a `TypeError` (before anything is sent) when `output` is not a Standard Schema.
 *
 * @example
 * assertOutputSchema('forecast', z.object({ tempC: z.number() })); // fine
 */
export function assertOutputSchema(name: string, output: unknown): asserts output is StandardSchema {
  if (!isStandardSchema(output)) {
    throw new TypeError(
      `callTool(${JSON.stringify(name)}): output must be a Standard Schema (zod 4, valibot, arktype, ...)`,
    );
  }
}

/**
 * Validate `result.structuredContent` with `output`; a tool error (`isError: true`) is returned as
 * it is. Rejects with {@link ToolOutputValidationError} naming the tool and the first issue.
 *
 * @example
 * const checked = await parseToolOutput('forecast', result, z.object({ tempC: z.number() }));
 */
export async function parseToolOutput<O extends StandardSchema<any, any>>(
  name: string,
  result: CallToolResult,
  output: O,
): Promise<ValidatedCallToolResult<O>> {
  if (result.isError === true) return result as ValidatedCallToolResult<O>;
  if (result.structuredContent === undefined) {
    throw new ToolOutputValidationError(
      name,
      `Tool ${name} returned no structuredContent, but the call asked for output validated by a schema`,
      ['/: structuredContent is missing'],
      result,
    );
  }
  let outcome: StandardResult<InferOutput<O>>;
  try {
    outcome = await output['~standard'].validate(result.structuredContent);
  } catch (error) {
    const text = error instanceof Error ? error.message : String(error);
    throw new ToolOutputValidationError(
      name,
      `Tool ${name}: the output schema could not be applied: ${text}`,
      [text],
      result,
    );
  }
  if (outcome.issues) {
    const issues = outcome.issues.map(issueText);
    throw new ToolOutputValidationError(
      name,
      `Tool ${name} returned structuredContent that does not match the output schema: ${issues[0] ?? 'invalid'}` +
        (issues.length > 1 ? ` (and ${issues.length - 1} more)` : ''),
      issues,
      result,
    );
  }
  // The schema's output (defaults applied, transforms run) is what the type promises.
  return { ...result, structuredContent: outcome.value };
}

/** `/path/to/field: message`, as the `outputSchema` checks report issues. */
function issueText(issue: StandardIssue): string {
  const path = (issue.path ?? []).map((segment) =>
    String(typeof segment === 'object' ? segment.key : segment),
  );
  return `/${path.join('/')}: ${issue.message}`;
}
