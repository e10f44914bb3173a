/**
 * The pluggable JSON Schema check the client uses for tool output. The default (ajv) is loaded on
 * first use, so clients that never validate never pay for it, and runtimes that forbid code
 * generation (`new Function`) can plug in another validator.
 */
import type { JsonObject } from '../core/jsonrpc.js';

/**
 * Validates one value; returns the issues found (empty when valid).
 *
 * @example
 * const positive: CompiledSchema = (value) => (typeof value === 'number' && value > 0 ? [] : ['/: must be > 0']);
 */
export type CompiledSchema = (value: unknown) => string[];

/**
 * Turns a JSON Schema into a check. `compile` throws if the schema cannot be used.
 *
 * @example
 * const validator: JsonSchemaValidator = { compile: () => () => [] }; // accept everything
 * McpClient.connect(transport, { outputValidator: validator });
 */
export interface JsonSchemaValidator {
  compile(schema: JsonObject): CompiledSchema;
}

let defaultValidator: Promise<JsonSchemaValidator> | undefined;

/**
 * The built-in validator (ajv: JSON Schema 2020-12 by default, draft-07 when `$schema` says so).
 *
 * @example
 * const check = (await loadDefaultValidator()).compile({ type: 'object', required: ['n'] });
 * check({}); // ['/: must have required property \'n\'']
 */
export function loadDefaultValidator(): Promise<JsonSchemaValidator> {
  defaultValidator ??= import('./ajv-validator.js').then((module) => module.createAjvValidator());
  return defaultValidator;
}
