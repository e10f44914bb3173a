/**
 * Elicitation: `elicitation/create` (server → client), form and URL modes.
 */
import type { Meta } from './common.js';

export type StringSchema = {
  type: 'string';
  title?: string;
  description?: string;
  minLength?: number;
  maxLength?: number;
  format?: 'email' | 'uri' | 'date' | 'date-time';
  default?: string;
};

export type NumberSchema = {
  type: 'number' | 'integer';
  title?: string;
  description?: string;
  minimum?: number;
  maximum?: number;
  default?: number;
};

export type BooleanSchema = { type: 'boolean'; title?: string; description?: string; default?: boolean };

export type UntitledSingleSelectEnumSchema = {
  type: 'string';
  title?: string;
  description?: string;
  enum: string[];
  default?: string;
};

export type TitledSingleSelectEnumSchema = {
  type: 'string';
  title?: string;
  description?: string;
  oneOf: { const: string; title: string }[];
  default?: string;
};

export type UntitledMultiSelectEnumSchema = {
  type: 'array';
  title?: string;
  description?: string;
  minItems?: number;
  maxItems?: number;
  items: { type: 'string'; enum: string[] };
  default?: string[];
};

export type TitledMultiSelectEnumSchema = {
  type: 'array';
  title?: string;
  description?: string;
  minItems?: number;
  maxItems?: number;
  items: { anyOf: { const: string; title: string }[] };
  default?: string[];
};

/** Deprecated in the spec but still accepted: `enumNames` parallel to `enum`. */
export type LegacyTitledEnumSchema = {
  type: 'string';
  title?: string;
  description?: string;
  enum: string[];
  enumNames?: string[];
  default?: string;
};

export type EnumSchema =
  | UntitledSingleSelectEnumSchema
  | TitledSingleSelectEnumSchema
  | UntitledMultiSelectEnumSchema
  | TitledMultiSelectEnumSchema
  | LegacyTitledEnumSchema;

/** One property of a form-mode `requestedSchema`: flat primitives only. */
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

/** Form mode params. */
export type ElicitFormParams = {
  mode?: 'form';
  message: string;
  requestedSchema: ElicitRequestedSchema;
  _meta?: Meta;
};

/** URL mode params (2025-11-25). */
export type ElicitUrlParams = {
  mode: 'url';
  message: string;
  elicitationId: string;
  url: string;
  _meta?: Meta;
};

export type ElicitParams = ElicitFormParams | ElicitUrlParams;

/** A value the user may give: what form-mode primitives produce. */
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

/** `notifications/elicitation/complete` params (URL mode, 2025-11-25). */
export type ElicitationCompleteParams = { elicitationId: string };
