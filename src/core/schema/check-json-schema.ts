/**
 * Registration-time check of a user's raw JSON Schema against its meta-schema, so that a schema
 * like `{ type: 12 }` fails when the tool is registered (naming the tool and the problem) instead
 * of failing every call.
 */
import { compileJsonSchema, schemaDialect, type JsonValidator } from './json-validator.js';
import { META_SCHEMA_2020_12 } from './meta-schema-2020-12.js';
import { isSimpleSchema } from './simple-schema.js';
import type { JsonSchema } from './to-json-schema.js';

// Built on first use: a server without raw schemas never pays for it, and spawn time stays low.
let metaCheck: JsonValidator | undefined;

/**
 * Throw a clear `Error` naming `what` when `schema` (a 2020-12 schema: `$schema` absent or
 * 2020-12) breaks the JSON Schema 2020-12 meta-schema. Schemas declaring draft-07 or 2019-09 are
 * not checked here (Keel bundles only the 2020-12 meta-schema, the dialect MCP prescribes).
 *
 * @example
 * assertValidJsonSchema({ type: 12 }, 'tool "add" input');
 * // Error: The tool "add" input schema is not a valid JSON Schema (2020-12): /type: ...
 */
export function assertValidJsonSchema(schema: JsonSchema, what: string): void {
  if (schemaDialect(schema) !== '2020-12') return;
  // Valid by construction (only well-typed keywords the meta-schema accepts): nothing to compile.
  if (isSimpleSchema(schema)) return;
  metaCheck ??= compileJsonSchema(META_SCHEMA_2020_12, 'JSON Schema 2020-12 meta');
  let verdict;
  try {
    verdict = metaCheck(schema);
  } catch (error) {
    // Values JSON cannot carry even after a round trip (a cycle): not a schema either.
    throw new Error(`The ${what} schema is not a valid JSON Schema: ${String(error)}`, { cause: error });
  }
  if (!verdict.ok) {
    throw new Error(`The ${what} schema is not a valid JSON Schema (2020-12): ${deepest(verdict.issues)}`);
  }
}

/** `/path: message` lines without those that only say a deeper line failed (`/properties: ...`). */
function deepest(issues: string[]): string {
  const at = (issue: string): string => issue.slice(0, issue.indexOf(': '));
  const kept = issues.filter((issue) => {
    const prefix = at(issue) === '/' ? '/' : `${at(issue)}/`;
    return !issues.some((other) => other !== issue && at(other).startsWith(prefix));
  });
  return (kept.length > 0 ? kept : issues).join('; ');
}
