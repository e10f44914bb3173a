/**
 * Capabilities exchanged in `initialize` (2025-11-25).
 */
import type { ExtensionMap } from '../extensions.js';

/**
 * @example
 * const caps: ClientCapabilities = { roots: { listChanged: true }, sampling: {}, elicitation: { form: {}, url: {} } };
 */
export type ClientCapabilities = {
  experimental?: { [key: string]: object };
  roots?: { listChanged?: boolean };
  sampling?: { context?: object; tools?: object };
  /** An empty object means form mode only. */
  elicitation?: { form?: object; url?: object };
  tasks?: {
    list?: object;
    cancel?: object;
    requests?: { sampling?: { createMessage?: object }; elicitation?: { create?: object } };
  };
  /** SEP-2133: the extensions the client supports, with their settings (see `withExtension`). */
  extensions?: ExtensionMap;
  [key: string]: unknown;
};

/**
 * @example
 * const caps: ServerCapabilities = { tools: { listChanged: true }, logging: {} };
 */
export type ServerCapabilities = {
  experimental?: { [key: string]: object };
  logging?: object;
  completions?: object;
  prompts?: { listChanged?: boolean };
  resources?: { subscribe?: boolean; listChanged?: boolean };
  tools?: { listChanged?: boolean };
  tasks?: { list?: object; cancel?: object; requests?: { tools?: { call?: object } } };
  /** SEP-2133: the extensions the server supports, with their settings. */
  extensions?: ExtensionMap;
  [key: string]: unknown;
};
