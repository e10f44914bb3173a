/**
 * The pluggable JSON Schema check the client uses for tool output. The default is Keel's one
 * JSON Schema validator (`@cfworker/json-schema`, no code generation); plug in another to use a
 * different engine.
 */
import type { JsonObject } from '../core/jsonrpc.js';
import { compileJsonSchema } from '../core/schema/json-validator.js';

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

/**
 * The built-in validator: JSON Schema 2020-12 by default, draft-07 or 2019-09 when `$schema` says
 * so. A schema in another dialect (servers send schemas we did not write) is checked as 2020-12.
 *
 * @example
 * const check = defaultJsonSchemaValidator.compile({ type: 'object', required: ['n'] });
 * check({}); // ['/: Instance does not have required property "n".']
 */
export const defaultJsonSchemaValidator: JsonSchemaValidator = {
  compile(schema) {
    const check = compileJsonSchema(schema, 'output', { anyDialect: true });
    return (value) => {
      const result = check(value);
      return result.ok ? [] : result.issues;
    };
  },
};
