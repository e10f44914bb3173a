/**
 * Which OAuth scopes a request needs, from the scopes its tool, resource or prompt was registered
 * with. Every method that names a scoped item is covered, not only the ones that run it: a
 * completion reveals a prompt's or template's argument values, a subscription its updates.
 */
import type { JsonObject } from '../core/jsonrpc.js';

/**
 * The registries' scope lookups (each undefined for an unknown or unscoped item).
 *
 * @example
 * const lookups: ScopeLookups = { tool: (n) => tools.scopes(n), prompt: (n) => prompts.scopes(n), uri: (u) => resources.scopes(u), template: (t) => resources.templateByUri(t)?.scopes };
 */
export interface ScopeLookups {
  readonly tool: (name: string) => readonly string[] | undefined;
  readonly prompt: (name: string) => readonly string[] | undefined;
  /** A concrete resource URI: its resource's scopes, else the first matching template's. */
  readonly uri: (uri: string) => readonly string[] | undefined;
  /** A URI template as registered (`completion/complete` refers to templates by it). */
  readonly template: (uriTemplate: string) => readonly string[] | undefined;
}

/**
 * The scopes `method` with `params` needs: `tools/call` (name), `prompts/get` (name),
 * `resources/read` and `resources/subscribe` (uri), `completion/complete` (its `ref`: a prompt, a
 * resource template, or a concrete resource URI), and 2026-07-28 `subscriptions/listen` (the
 * union over `notifications.resourceSubscriptions`). Undefined for anything else.
 *
 * @example
 * requiredScopesOf('completion/complete', { ref: { type: 'ref/prompt', name: 'review' } }, lookups); // ['prompts']
 */
export function requiredScopesOf(
  method: string,
  params: JsonObject | undefined,
  lookups: ScopeLookups,
): readonly string[] | undefined {
  switch (method) {
    case 'tools/call':
      return ifString(params?.name, lookups.tool);
    case 'prompts/get':
      return ifString(params?.name, lookups.prompt);
    case 'resources/read':
    case 'resources/subscribe':
      return ifString(params?.uri, lookups.uri);
    case 'completion/complete':
      return completionScopes(params?.ref, lookups);
    case 'subscriptions/listen':
      return listenScopes(params?.notifications, lookups);
    default:
      return undefined;
  }
}

function ifString(
  key: unknown,
  lookup: (key: string) => readonly string[] | undefined,
): readonly string[] | undefined {
  return typeof key === 'string' ? lookup(key) : undefined;
}

function completionScopes(ref: unknown, lookups: ScopeLookups): readonly string[] | undefined {
  if (typeof ref !== 'object' || ref === null) return undefined;
  const { type, name, uri } = ref as { type?: unknown; name?: unknown; uri?: unknown };
  if (type === 'ref/prompt') return ifString(name, lookups.prompt);
  if (type !== 'ref/resource' || typeof uri !== 'string') return undefined;
  return lookups.template(uri) ?? lookups.uri(uri);
}

function listenScopes(notifications: unknown, lookups: ScopeLookups): readonly string[] | undefined {
  if (typeof notifications !== 'object' || notifications === null) return undefined;
  const uris = (notifications as { resourceSubscriptions?: unknown }).resourceSubscriptions;
  if (!Array.isArray(uris)) return undefined;
  const needed = new Set<string>();
  for (const uri of uris) {
    if (typeof uri === 'string') for (const scope of lookups.uri(uri) ?? []) needed.add(scope);
  }
  return needed.size === 0 ? undefined : [...needed];
}
