/**
 * The capabilities a client declares in `initialize`, derived from the handlers it has: a client
 * never advertises something it cannot answer (the spec: use only negotiated capabilities).
 */
import type { ClientCapabilities } from '../core/types/capabilities.js';
import type { ElicitationOptions } from './elicitation.js';
import type { RootsSource } from './roots.js';
import type { SamplingOptions } from './sampling.js';

/** The handlers a client has configured. */
export interface ConfiguredHandlers {
  sampling?: SamplingOptions | undefined;
  elicitation?: ElicitationOptions | undefined;
  roots?: RootsSource | undefined;
}

/**
 * `extra` adds keys (`experimental`, ...) and refines declared ones; `sampling`, `elicitation`
 * and `roots` in it are dropped unless a handler backs them. `elicitation.form.applyDefaults` is
 * a local switch (read by {@link wantsAppliedDefaults}), never sent.
 *
 * @example
 * deriveCapabilities({ roots: [] }, { experimental: { x: {} } }); // { experimental: { x: {} }, roots: { listChanged: true } }
 */
export function deriveCapabilities(
  handlers: ConfiguredHandlers,
  extra: ClientCapabilities = {},
): ClientCapabilities {
  const { sampling, elicitation: _elicitation, roots, ...rest } = extra;
  const capabilities: ClientCapabilities = { ...rest };
  if (handlers.sampling) {
    const declared: NonNullable<ClientCapabilities['sampling']> = { ...sampling };
    if (handlers.sampling.tools) declared.tools = {};
    if (handlers.sampling.context) declared.context = {};
    capabilities.sampling = declared;
  }
  const modes: NonNullable<ClientCapabilities['elicitation']> = {};
  if (handlers.elicitation?.form) modes.form = {};
  if (handlers.elicitation?.url) modes.url = {};
  if (modes.form || modes.url) capabilities.elicitation = modes;
  if (handlers.roots) capabilities.roots = { ...roots, listChanged: true };
  return capabilities;
}

/** True when `capabilities.elicitation.form.applyDefaults` is set (the official SDK's switch). */
export function wantsAppliedDefaults(extra: ClientCapabilities | undefined): boolean {
  const form = extra?.elicitation?.form as { applyDefaults?: unknown } | undefined;
  return form?.applyDefaults === true;
}
