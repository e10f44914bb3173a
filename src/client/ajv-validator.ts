/**
 * The default {@link JsonSchemaValidator}, on ajv. MCP's default dialect is JSON Schema 2020-12
 * (SEP-1613); servers built on older SDKs still send draft-07, so `$schema` picks the engine.
 */
import { Ajv as AjvDraft07, type ErrorObject, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { JsonObject } from '../core/jsonrpc.js';
import type { CompiledSchema, JsonSchemaValidator } from './json-schema-validator.js';

const DRAFT_07 = /^https?:\/\/json-schema\.org\/draft-0[67]\/schema#?$/;
const DRAFT_2020 = /^https?:\/\/json-schema\.org\/draft\/2020-12\/schema#?$/;

type AnyAjv = AjvDraft07 | Ajv2020;

function configure<T extends AnyAjv>(ajv: T): T {
  // Servers send schemas we did not write: unknown keywords and formats are tolerated, not fatal.
  // ajv-formats is a CJS module whose typings describe `.default`; at run time both are the plugin.
  addFormats.default(ajv);
  return ajv;
}

/** `/path: message` lines, the shape every validator in Keel reports. */
export function formatAjvErrors(errors: ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).map((error) => `${error.instancePath || '/'}: ${error.message ?? 'is invalid'}`);
}

/**
 * @example
 * const validator = createAjvValidator();
 * validator.compile({ type: 'object', properties: { n: { type: 'number' } } })({ n: 'x' }); // ['/n: must be number']
 */
export function createAjvValidator(): JsonSchemaValidator {
  let draft07: AjvDraft07 | undefined;
  let draft2020: Ajv2020 | undefined;
  const options = { strict: false, allErrors: true, logger: false } as const;
  const engineFor = (schema: JsonObject): { ajv: AnyAjv; schema: JsonObject } => {
    const declared = typeof schema.$schema === 'string' ? schema.$schema : undefined;
    if (declared !== undefined && DRAFT_07.test(declared)) {
      return { ajv: (draft07 ??= configure(new AjvDraft07(options))), schema };
    }
    // 2020-12, no `$schema`, or a dialect we do not ship: validate as 2020-12 (the MCP default).
    const ajv = (draft2020 ??= configure(new Ajv2020(options)));
    if (declared === undefined || DRAFT_2020.test(declared)) return { ajv, schema };
    const { $schema: _ignored, ...rest } = schema;
    return { ajv, schema: rest };
  };
  return {
    compile(schema: JsonObject): CompiledSchema {
      const { ajv, schema: usable } = engineFor(schema);
      let validate: ValidateFunction;
      try {
        validate = ajv.compile(usable);
      } finally {
        // ajv keeps every compiled schema (and its `$id`) forever; a long-lived client re-lists
        // tools many times, so forget it at once: the compiled function keeps working.
        ajv.removeSchema(usable);
      }
      return (value) => (validate(value) ? [] : formatAjvErrors(validate.errors));
    },
  };
}
