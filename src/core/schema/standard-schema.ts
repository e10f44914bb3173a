/**
 * The Standard Schema and Standard JSON Schema interfaces (standardschema.dev), written out here
 * so Keel depends on the contract, not on a package. Declared with method syntax so every
 * library's own (more precise) signatures stay assignable.
 */

/** One validation problem. */
export interface StandardIssue {
  readonly message: string;
  readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined;
}

/** What `~standard.validate` returns. */
export type StandardResult<Output> =
  { readonly value: Output; readonly issues?: undefined } | { readonly issues: ReadonlyArray<StandardIssue> };

/** Options of a Standard JSON Schema converter. */
export interface StandardJsonSchemaOptions {
  readonly target: string;
  readonly libraryOptions?: Record<string, unknown> | undefined;
}

/** The `~standard.jsonSchema` converter (Standard JSON Schema). Each side may throw. */
export interface StandardJsonSchemaConverter {
  input(options: StandardJsonSchemaOptions): Record<string, unknown>;
  output(options: StandardJsonSchemaOptions): Record<string, unknown>;
}

/**
 * Any Standard Schema (zod 4, valibot, arktype, ...). `jsonSchema` is present when the library
 * also implements Standard JSON Schema.
 *
 * @example
 * const schema: StandardSchema<{ city: string }> = z.object({ city: z.string() });
 */
export interface StandardSchema<Input = unknown, Output = Input> {
  readonly '~standard': {
    readonly version: 1;
    readonly vendor: string;
    validate(value: unknown): StandardResult<Output> | Promise<StandardResult<Output>>;
    readonly types?: { readonly input: Input; readonly output: Output } | undefined;
    readonly jsonSchema?: StandardJsonSchemaConverter | undefined;
  };
}

/**
 * The validated (output) type of a Standard Schema.
 *
 * @example
 * const city = z.object({ name: z.string().default('Oslo') });
 * type City = InferOutput<typeof city>; // { name: string }
 */
export type InferOutput<S extends StandardSchema<any, any>> = NonNullable<S['~standard']['types']>['output'];

/**
 * The accepted (input) type of a Standard Schema.
 *
 * @example
 * const city = z.object({ name: z.string().default('Oslo') });
 * type CityInput = InferInput<typeof city>; // { name?: string | undefined }
 */
export type InferInput<S extends StandardSchema<any, any>> = NonNullable<S['~standard']['types']>['input'];

/**
 * True for an object implementing Standard Schema.
 *
 * @example
 * isStandardSchema(z.string()); // true
 * isStandardSchema({ type: 'object' }); // false
 */
export function isStandardSchema(value: unknown): value is StandardSchema<unknown, unknown> {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return false;
  const props = (value as { '~standard'?: { validate?: unknown } })['~standard'];
  return typeof props === 'object' && props !== null && typeof props.validate === 'function';
}

/**
 * One line per issue, `path: message`, for error texts.
 *
 * @example
 * formatIssues([{ message: 'Required', path: ['city'] }]); // 'city: Required'
 */
export function formatIssues(issues: ReadonlyArray<StandardIssue>): string {
  return issues
    .map((issue) => {
      const path = (issue.path ?? [])
        .map((segment) => String(typeof segment === 'object' ? segment.key : segment))
        .join('.');
      return path ? `${path}: ${issue.message}` : issue.message;
    })
    .join('; ');
}
