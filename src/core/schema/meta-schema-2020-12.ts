/**
 * The JSON Schema 2020-12 meta-schema (core, applicator, unevaluated, validation, meta-data,
 * format-annotation and content vocabularies), as one self-contained document.
 *
 * Why not the published files: they are eight documents tied together by `$dynamicRef: "#meta"`,
 * which `@cfworker/json-schema` does not implement (it would skip every subschema). When a schema
 * is checked against the standard meta-schema itself (no extension vocabulary), every
 * `$dynamicRef: "#meta"` resolves to the outermost meta-schema, so `$ref: "#"` is the exact static
 * equivalent. Kept as plain data: importing it costs one object literal, and the validator built
 * from it is created on first use (see `check-json-schema.ts`).
 */
import type { JsonSchema } from './to-json-schema.js';

/** Any schema position: the meta-schema again (the static form of `$dynamicRef: "#meta"`). */
const SCHEMA = { $ref: '#' };
const schemaMap = { type: 'object', additionalProperties: SCHEMA };
const schemaArray = { type: 'array', minItems: 1, items: SCHEMA };
const nonNegativeInteger = { type: 'integer', minimum: 0 };
const stringArray = { type: 'array', items: { type: 'string' }, uniqueItems: true };
const anchorString = { type: 'string', pattern: '^[A-Za-z_][-A-Za-z0-9._]*$' };
const uriString = { type: 'string', format: 'uri' };
const uriReferenceString = { type: 'string', format: 'uri-reference' };
const simpleTypes = { enum: ['array', 'boolean', 'integer', 'null', 'number', 'object', 'string'] };
const string = { type: 'string' };
const boolean = { type: 'boolean' };
const number = { type: 'number' };

/**
 * JSON Schema 2020-12's meta-schema in one document (see the module comment for the one change).
 *
 * @example
 * compileJsonSchema(META_SCHEMA_2020_12, 'meta-schema')({ type: 12 }).ok; // false
 */
export const META_SCHEMA_2020_12: JsonSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: ['object', 'boolean'],
  properties: {
    // core
    $id: { ...uriReferenceString, pattern: '^[^#]*#?$' },
    $schema: uriString,
    $ref: uriReferenceString,
    $anchor: anchorString,
    $dynamicRef: uriReferenceString,
    $dynamicAnchor: anchorString,
    $vocabulary: { type: 'object', propertyNames: uriString, additionalProperties: boolean },
    $comment: string,
    $defs: schemaMap,
    // applicator
    prefixItems: schemaArray,
    items: SCHEMA,
    contains: SCHEMA,
    additionalProperties: SCHEMA,
    properties: schemaMap,
    patternProperties: { ...schemaMap, propertyNames: { format: 'regex' } },
    dependentSchemas: schemaMap,
    propertyNames: SCHEMA,
    if: SCHEMA,
    then: SCHEMA,
    else: SCHEMA,
    allOf: schemaArray,
    anyOf: schemaArray,
    oneOf: schemaArray,
    not: SCHEMA,
    // unevaluated
    unevaluatedItems: SCHEMA,
    unevaluatedProperties: SCHEMA,
    // validation
    type: {
      anyOf: [simpleTypes, { type: 'array', items: simpleTypes, minItems: 1, uniqueItems: true }],
    },
    enum: { type: 'array' },
    multipleOf: { type: 'number', exclusiveMinimum: 0 },
    maximum: number,
    exclusiveMaximum: number,
    minimum: number,
    exclusiveMinimum: number,
    maxLength: nonNegativeInteger,
    minLength: nonNegativeInteger,
    pattern: { type: 'string', format: 'regex' },
    maxItems: nonNegativeInteger,
    minItems: nonNegativeInteger,
    uniqueItems: boolean,
    maxContains: nonNegativeInteger,
    minContains: nonNegativeInteger,
    maxProperties: nonNegativeInteger,
    minProperties: nonNegativeInteger,
    required: stringArray,
    dependentRequired: { type: 'object', additionalProperties: stringArray },
    // meta-data
    title: string,
    description: string,
    deprecated: boolean,
    readOnly: boolean,
    writeOnly: boolean,
    examples: { type: 'array' },
    // format-annotation
    format: string,
    // content
    contentEncoding: string,
    contentMediaType: string,
    contentSchema: SCHEMA,
    // Kept by 2020-12 for schemas written for earlier drafts. (`$recursiveAnchor`/`$recursiveRef`
    // are left unchecked: 2019-09 gave them other types, and 2020-12 only deprecates them.)
    definitions: schemaMap,
    dependencies: { type: 'object', additionalProperties: { anyOf: [SCHEMA, stringArray] } },
  },
};
