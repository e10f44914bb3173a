/**
 * Elicitation: `elicitation/create` (server → client), form and URL modes.
 */
import type { Meta } from './common.js';

/**
 * A string field of an elicitation form.
 *
 * @example
 * const email: StringSchema = { type: 'string', title: 'Email', format: 'email', maxLength: 200 };
 */
export type StringSchema = {
  type: 'string';
  title?: string;
  description?: string;
  minLength?: number;
  maxLength?: number;
  format?: 'email' | 'uri' | 'date' | 'date-time';
  default?: string;
};

/**
 * A number or integer field of an elicitation form.
 *
 * @example
 * const age: NumberSchema = { type: 'integer', minimum: 0, maximum: 150, default: 30 };
 */
export type NumberSchema = {
  type: 'number' | 'integer';
  title?: string;
  description?: string;
  minimum?: number;
  maximum?: number;
  default?: number;
};

/**
 * A yes/no field of an elicitation form.
 *
 * @example
 * const subscribe: BooleanSchema = { type: 'boolean', title: 'Subscribe to updates', default: false };
 */
export type BooleanSchema = { type: 'boolean'; title?: string; description?: string; default?: boolean };

/**
 * Pick one of some strings.
 *
 * @example
 * const size: UntitledSingleSelectEnumSchema = { type: 'string', enum: ['S', 'M', 'L'], default: 'M' };
 */
export type UntitledSingleSelectEnumSchema = {
  type: 'string';
  title?: string;
  description?: string;
  enum: string[];
  default?: string;
};

/**
 * Pick one value, each shown with its own title.
 *
 * @example
 * const unit: TitledSingleSelectEnumSchema = {
 *   type: 'string',
 *   oneOf: [{ const: 'C', title: 'Celsius' }, { const: 'F', title: 'Fahrenheit' }],
 * };
 */
export type TitledSingleSelectEnumSchema = {
  type: 'string';
  title?: string;
  description?: string;
  oneOf: { const: string; title: string }[];
  default?: string;
};

/**
 * Pick several of some strings.
 *
 * @example
 * const tags: UntitledMultiSelectEnumSchema = { type: 'array', items: { type: 'string', enum: ['a', 'b', 'c'] }, maxItems: 2 };
 */
export type UntitledMultiSelectEnumSchema = {
  type: 'array';
  title?: string;
  description?: string;
  minItems?: number;
  maxItems?: number;
  items: { type: 'string'; enum: string[] };
  default?: string[];
};

/**
 * Pick several values, each shown with its own title.
 *
 * @example
 * const days: TitledMultiSelectEnumSchema = {
 *   type: 'array',
 *   items: { anyOf: [{ const: 'sat', title: 'Saturday' }, { const: 'sun', title: 'Sunday' }] },
 * };
 */
export type TitledMultiSelectEnumSchema = {
  type: 'array';
  title?: string;
  description?: string;
  minItems?: number;
  maxItems?: number;
  items: { anyOf: { const: string; title: string }[] };
  default?: string[];
};

/**
 * Deprecated in the spec but still accepted: `enumNames` parallel to `enum`.
 *
 * @example
 * const unit: LegacyTitledEnumSchema = { type: 'string', enum: ['C', 'F'], enumNames: ['Celsius', 'Fahrenheit'] };
 */
export type LegacyTitledEnumSchema = {
  type: 'string';
  title?: string;
  description?: string;
  enum: string[];
  enumNames?: string[];
  default?: string;
};

/**
 * Any of the enum field kinds.
 *
 * @example
 * const choice: EnumSchema = { type: 'string', enum: ['yes', 'no'] };
 */
export type EnumSchema =
  | UntitledSingleSelectEnumSchema
  | TitledSingleSelectEnumSchema
  | UntitledMultiSelectEnumSchema
  | TitledMultiSelectEnumSchema
  | LegacyTitledEnumSchema;

/**
 * One property of a form-mode `requestedSchema`: flat primitives only.
 *
 * @example
 * const field: PrimitiveSchemaDefinition = { type: 'string', title: 'Name', default: 'Ada' };
 */
export type PrimitiveSchemaDefinition = StringSchema | NumberSchema | BooleanSchema | EnumSchema;

/**
 * @example
 * const s: ElicitRequestedSchema = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };
 */
export type ElicitRequestedSchema = {
  $schema?: string;
  type: 'object';
  properties: { [key: string]: PrimitiveSchemaDefinition };
  required?: string[];
};

/**
 * Form mode params.
 *
 * @example
 * const params: ElicitFormParams = {
 *   mode: 'form',
 *   message: 'Your name?',
 *   requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
 * };
 */
export type ElicitFormParams = {
  mode?: 'form';
  message: string;
  requestedSchema: ElicitRequestedSchema;
  _meta?: Meta;
};

/**
 * URL mode params (2025-11-25).
 *
 * @example
 * const params: ElicitUrlParams = { mode: 'url', message: 'Sign in', elicitationId: 'e1', url: 'https://example.com/login' };
 */
export type ElicitUrlParams = {
  mode: 'url';
  message: string;
  elicitationId: string;
  url: string;
  _meta?: Meta;
};

/**
 * `elicitation/create` params, either mode.
 *
 * @example
 * const isUrl = (params: ElicitParams): params is ElicitUrlParams => params.mode === 'url';
 */
export type ElicitParams = ElicitFormParams | ElicitUrlParams;

/**
 * A value the user may give: what form-mode primitives produce.
 *
 * @example
 * const values: ElicitValue[] = ['Ada', 36, true, ['a', 'b']];
 */
export type ElicitValue = string | number | boolean | string[];

/**
 * @example
 * const r: ElicitResult = { action: 'accept', content: { name: 'Ada' } };
 */
export type ElicitResult = {
  action: 'accept' | 'decline' | 'cancel';
  content?: { [key: string]: ElicitValue };
  _meta?: Meta;
};

/**
 * `notifications/elicitation/complete` params (URL mode, 2025-11-25).
 *
 * @example
 * client.on('elicitationComplete', ({ elicitationId }: ElicitationCompleteParams) => retry(elicitationId));
 */
export type ElicitationCompleteParams = { elicitationId: string };
