/**
 * Per-caller views: which callers may see a tool, resource, resource template or prompt
 * (registration option `visibleTo`). A hidden item is absent for that caller: not in its lists,
 * and "not found" wherever it names it. This file holds the public shapes and how a rule is
 * checked once, at registration, into one predicate.
 */
import type { AuthInfo } from '../../core/auth.js';
import type { JsonObject } from '../../core/jsonrpc.js';
import type { MessageInfo } from '../../core/transport.js';
import { checkScopes } from '../auth/options.js';
import type { HandlerSession } from '../handler-session.js';

/**
 * Who is asking, as a visibility rule sees it: the verified token (HTTP with `auth`, or what the
 * host's authentication attached), the session, the era of the request and its `_meta`.
 *
 * @example
 * server.tool('debug', { description: 'Debug', visibleTo: (caller: ViewCaller) => caller.auth?.claims?.role === 'admin' }, () => 'ok');
 */
export interface ViewCaller {
  /** The verified caller; undefined on stdio, memory, or an HTTP endpoint without `auth`. */
  readonly auth: AuthInfo | undefined;
  /** The session the request came on (its `state`, `clientInfo`, ...). */
  readonly session: HandlerSession;
  /** The era of the request (for logs; prefer rules on `auth`, see docs/server.md). */
  readonly era: 'legacy' | 'modern';
  /** The request's `_meta`, as the client sent it. */
  readonly meta: JsonObject | undefined;
  /** Transport facts (HTTP headers). */
  readonly info: MessageInfo | undefined;
}

/**
 * The declarative form of `visibleTo`: every field given must hold. `scopes`: the caller's token
 * grants all of them; `subjects`: its subject (`sub`) is one of these; `clientIds`: the OAuth
 * client it was issued to is one of these. A caller without a token matches none.
 *
 * @example
 * const rule: VisibilityRule = { scopes: ['admin'], clientIds: ['ops-console'] };
 */
export interface VisibilityRule {
  readonly scopes?: readonly string[];
  readonly subjects?: readonly string[];
  readonly clientIds?: readonly string[];
}

/**
 * The `visibleTo` registration option: a {@link VisibilityRule}, or a predicate on the
 * {@link ViewCaller} (true: visible). Without it an item is visible to everyone.
 *
 * @example
 * server.tool('purge', { description: 'Purge caches', visibleTo: { scopes: ['admin'] } }, () => 'done');
 * server.prompt('beta', { description: 'Beta prompt', visibleTo: (c) => c.auth?.subject === 'alice' }, () => 'hi');
 */
export type Visibility = VisibilityRule | ((caller: ViewCaller) => boolean);

/**
 * A checked `visibleTo` (what the registries keep): true when `caller` may see the item
 * (undefined caller: nobody known). `authOnly`: the rule reads nothing but `caller.auth` (the
 * declarative form), so it can be decided where only the token is known (the HTTP scope gate).
 *
 * @example
 * const rule: ViewRule = (caller) => caller?.auth?.subject === 'alice';
 */
export type ViewRule = ((caller: ViewCaller | undefined) => boolean) & { readonly authOnly?: true };

/** @internal Told when a `visibleTo` predicate throws (the item is then hidden from that caller). */
export type RuleFailure = (error: unknown, caller: ViewCaller, what: string) => void;

function stringList(value: unknown, what: string): readonly string[] {
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string' || item === ''))
    throw new TypeError(`${what} must be an array of non-empty strings`);
  return Object.freeze([...(value as string[])]);
}

function hasAll(granted: readonly string[], needed: readonly string[]): boolean {
  for (const scope of needed) if (!granted.includes(scope)) return false;
  return true;
}

/**
 * @internal Check a `visibleTo` option of `what` (a TypeError names what is wrong) and make its
 * predicate. A predicate that throws hides the item (never shows it by accident) and is reported.
 *
 * @example
 * const rule = compileVisibility({ scopes: ['admin'] }, 'tool "purge"', report);
 */
export function compileVisibility(
  visibleTo: Visibility | undefined,
  what: string,
  report: RuleFailure,
): ViewRule | undefined {
  if (visibleTo === undefined) return undefined;
  if (typeof visibleTo === 'function') {
    return (caller) => {
      if (caller === undefined) return false;
      try {
        return visibleTo(caller) === true;
      } catch (error) {
        report(error, caller, what);
        return false;
      }
    };
  }
  if (typeof visibleTo !== 'object' || visibleTo === null || Array.isArray(visibleTo))
    throw new TypeError(`${what} visibleTo must be { scopes?, subjects?, clientIds? } or a function`);
  const { scopes, subjects, clientIds, ...rest } = visibleTo as { [key: string]: unknown };
  const unknown = Object.keys(rest);
  if (unknown.length > 0)
    throw new TypeError(`${what} visibleTo: unknown field "${unknown[0]}" (scopes, subjects, clientIds)`);
  if (scopes === undefined && subjects === undefined && clientIds === undefined)
    throw new TypeError(`${what} visibleTo needs scopes, subjects or clientIds (or a function)`);
  const needed = scopes === undefined ? undefined : checkScopes(scopes, `${what} visibleTo.scopes`);
  const subjectList = subjects === undefined ? undefined : stringList(subjects, `${what} visibleTo.subjects`);
  const clientList =
    clientIds === undefined ? undefined : stringList(clientIds, `${what} visibleTo.clientIds`);
  const rule = (caller: ViewCaller | undefined): boolean => {
    const auth = caller?.auth;
    if (auth === undefined) return false;
    if (needed !== undefined && !hasAll(auth.scopes, needed)) return false;
    if (subjectList !== undefined && (auth.subject === undefined || !subjectList.includes(auth.subject)))
      return false;
    if (clientList !== undefined && (auth.clientId === undefined || !clientList.includes(auth.clientId)))
      return false;
    return true;
  };
  return Object.assign(rule, { authOnly: true as const });
}

/**
 * @internal Whether an item with `rule` is visible to the bearer of `auth`, as far as the token
 * alone can tell: a declarative rule is decided; a predicate (which may read the session or
 * `_meta`) counts as visible here and is decided when the request is served.
 *
 * @example
 * visibleToToken(rule, { subject: 'bob', scopes: [] }); // false for { scopes: ['admin'] }
 */
export function visibleToToken(rule: ViewRule | undefined, auth: AuthInfo): boolean {
  if (rule === undefined || rule.authOnly !== true) return true;
  // An auth-only rule reads `caller.auth` and nothing else.
  return rule({ auth } as ViewCaller);
}
