/**
 * An elicitation's requested schema as a list of terminal prompts, and the typed value of an
 * answer. Kept free of the prompt library so it can be tested on its own.
 */
import { safeLine } from './safe-text.js';

type Property = Record<string, any>;

/**
 * One prompt of the form, in the order of the schema's properties.
 *
 * @example
 * const field: FormField = { key: 'age', label: 'Age', kind: 'integer', required: true };
 */
export interface FormField {
  key: string;
  /** title, description or key, shown as the prompt. */
  label: string;
  kind: 'string' | 'integer' | 'number' | 'boolean' | 'select' | 'multiselect';
  required: boolean;
  default?: unknown;
  /** select / multiselect: the values and their labels. */
  choices?: { value: string; label: string }[];
  /** For checks on typed text: minLength, maxLength, minimum, maximum. */
  property: Property;
}

/**
 * The prompts for a requested schema (`properties` in order, `required` enforced later).
 *
 * @example
 * formFields({ type: 'object', properties: { ok: { type: 'boolean' } } })[0].kind; // 'boolean'
 */
export function formFields(schema: Property | undefined): FormField[] {
  const properties = (schema?.properties ?? {}) as Record<string, Property>;
  const required = new Set<string>(Array.isArray(schema?.required) ? schema.required : []);
  return Object.entries(properties).map(([key, property]) => {
    // One line each: a title or description cannot draw a line that looks like another prompt.
    const title = typeof property.title === 'string' && property.title !== '' ? property.title : key;
    const label = [title, property.description]
      .filter((part): part is string => typeof part === 'string' && part !== '')
      .map((part) => safeLine(part))
      .join(': ');
    const base = { key, label, required: required.has(key), default: property.default, property };
    const single = choicesOf(property);
    if (single) return { ...base, kind: 'select', choices: single };
    if (property.type === 'array') {
      return { ...base, kind: 'multiselect', choices: choicesOf(property.items ?? {}) ?? [] };
    }
    const kind = ['integer', 'number', 'boolean'].includes(property.type) ? property.type : 'string';
    return { ...base, kind };
  });
}

function choicesOf(property: Property): { value: string; label: string }[] | undefined {
  if (Array.isArray(property.enum)) {
    const names: unknown[] = Array.isArray(property.enumNames) ? property.enumNames : [];
    return property.enum.map((value: unknown, i: number) => ({
      value: String(value),
      label: safeLine(typeof names[i] === 'string' ? names[i] : String(value)),
    }));
  }
  const branches = property.oneOf ?? property.anyOf;
  if (Array.isArray(branches) && branches.every((b: Property) => b && 'const' in b)) {
    return branches.map((b: Property) => ({
      value: String(b.const),
      label: safeLine(typeof b.title === 'string' ? b.title : String(b.const)),
    }));
  }
  return undefined;
}

/**
 * Check typed text against a field: `undefined` when it is fine, else the message to show.
 *
 * @example
 * checkText({ key: 'n', label: 'n', kind: 'integer', required: true, property: {} }, 'x'); // 'Enter an integer'
 */
export function checkText(field: FormField, text: string | undefined): string | undefined {
  const value = text ?? '';
  if (value === '') return field.required ? 'Required' : undefined;
  const p = field.property;
  if (field.kind === 'integer' || field.kind === 'number') {
    const n = Number(value);
    if (!Number.isFinite(n) || value.trim() === '') return `Enter a number`;
    if (field.kind === 'integer' && !Number.isInteger(n)) return 'Enter an integer';
    if (typeof p.minimum === 'number' && n < p.minimum) return `At least ${p.minimum}`;
    if (typeof p.maximum === 'number' && n > p.maximum) return `At most ${p.maximum}`;
    return undefined;
  }
  if (typeof p.minLength === 'number' && value.length < p.minLength)
    return `At least ${p.minLength} characters`;
  if (typeof p.maxLength === 'number' && value.length > p.maxLength)
    return `At most ${p.maxLength} characters`;
  return undefined;
}

/**
 * The JSON value of accepted text (`undefined`: left empty, so not sent).
 *
 * @example
 * textValue({ key: 'n', label: 'n', kind: 'integer', required: true, property: {} }, '42'); // 42
 */
export function textValue(field: FormField, text: string | undefined): string | number | undefined {
  if (text === undefined || text === '') return undefined;
  return field.kind === 'integer' || field.kind === 'number' ? Number(text) : text;
}
