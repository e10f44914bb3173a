/**
 * One `subscriptions/listen` (2026-07-28) while it lives: acknowledged first, then the change
 * notifications its filter opted into, each tagged with the subscription id (the listen request's
 * JSON-RPC id), until the client cancels it (its handler is aborted: nothing more is written, no
 * response), the transport drops (the same), or the server ends it gracefully (the one response,
 * after what was queued before it). How one is served (filter, limits, acknowledgement) is in
 * serve-listen.ts; this file holds what the hub and the session need: the live subscription, and
 * its graceful end.
 */
import type { Connection } from '../../../core/engine/connection.js';
import type { RequestContext } from '../../../core/engine/request-context.js';
import type { JsonObject, RequestId } from '../../../core/jsonrpc.js';
import { MetaKey } from '../../../core/types/modern.js';
import type { SubscriptionFilter } from '../../../core/types/subscriptions.js';
import { isAuthInfo } from '../../auth/auth-info.js';
import type { HandlerSession } from '../../handler-session.js';
import type { ViewCaller } from '../../views/visibility.js';
import { filterMatcher, wants, type FilterMatcher } from './listen-filter.js';

const noop = (): void => undefined;

/**
 * Whom a listen counts against for `maxSubscriptionsPerClient`: an authenticated principal, or
 * the connection it came on (see `clientKeyOf` in serve-listen.ts).
 *
 * @example
 * const client: ListenClient = 'sub:alice';
 */
export type ListenClient = string | Connection;

/**
 * A live subscription. Created by `serveListen` (serve-listen.ts); delivered to by `ListenHub.publish`.
 *
 * @example
 * listen.deliver('notifications/tools/list_changed', undefined); // sent only if the filter wants it
 */
export class Listen {
  /** Set once the server chose to end it gracefully. */
  graceful = false;
  /**
   * The promise the engine got from this request's handler. Awaited (through a `then` added after
   * the engine's own) to know the graceful result has been handed to the transport.
   */
  answer: Promise<unknown> | undefined;
  private finish: (() => void) | undefined;
  private readonly done: Promise<void>;

  private readonly matcher: FilterMatcher;
  private viewCaller: ViewCaller | undefined;

  constructor(
    /** The connection it came on: closing that connection ends it. */
    readonly connection: Connection,
    private readonly ctx: RequestContext,
    readonly filter: SubscriptionFilter,
    /** Whom it counts against for `maxSubscriptionsPerClient`. */
    readonly client: ListenClient,
    /** The session it came on (what a visibility rule sees as `caller.session`). */
    private readonly session: HandlerSession,
  ) {
    this.matcher = filterMatcher(filter);
    this.done = new Promise<void>((resolve) => (this.finish = resolve));
  }

  /**
   * Who listens, for per-caller views: the listen request's own auth and `_meta` (made on first
   * use: a server without visibility rules never asks).
   */
  get caller(): ViewCaller {
    const authInfo = this.ctx.info?.authInfo;
    return (this.viewCaller ??= {
      auth: isAuthInfo(authInfo) ? authInfo : undefined,
      session: this.session,
      era: 'modern',
      meta: this.ctx.meta,
      info: this.ctx.info,
    });
  }

  /** The subscription id: the listen request's JSON-RPC id. */
  get id(): RequestId {
    return this.ctx.id;
  }

  /** Send `method` on this subscription when its filter wants it (dropped once it ended). */
  deliver(method: string, params: JsonObject | undefined): Promise<void> {
    // Also after `end()`: until the final result is written a change still goes before it (the
    // context drops what comes after the result).
    if (!wants(this.matcher, method, params)) return Promise.resolve();
    return this.ctx.notify(method, tagged(params, this.id));
  }

  /** End it gracefully: its handler returns the final result. Idempotent. */
  end(): void {
    this.graceful = true;
    this.finish?.();
    this.finish = undefined;
  }

  /** Resolves on a graceful end, rejects with the abort reason when the request is aborted. */
  wait(): Promise<void> {
    const signal = this.ctx.signal;
    if (signal.aborted) return Promise.reject(signal.reason as Error);
    return new Promise<void>((resolve, reject) => {
      const onAbort = (): void => reject(signal.reason as Error);
      signal.addEventListener('abort', onAbort, { once: true });
      void this.done.then(() => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      });
    });
  }
}

/**
 * @internal `params` with the subscription id in `_meta`, as every message of a listen carries it.
 *
 * @example
 * tagged({ uri: 'file:///a.txt' }, 7); // { uri: 'file:///a.txt', _meta: { 'io.modelcontextprotocol/subscriptionId': 7 } }
 */
export function tagged(params: JsonObject | undefined, id: RequestId): JsonObject {
  const meta = params?._meta as JsonObject | undefined;
  return { ...params, _meta: { ...meta, [MetaKey.SubscriptionId]: id } };
}

/**
 * End `listens` of `connection` gracefully and wait until each final result has been handed to the
 * transport (after everything queued before it). On a transport without a stream per request
 * (stdio, memory), each is then also torn down with `notifications/cancelled` naming the listen
 * id (cancellation.mdx: the server's teardown of a listen on stdio); HTTP closes the listen's
 * response stream after the result instead.
 *
 * @example
 * await endListens(session.connection, session.server.listens.of(session.connection));
 */
export async function endListens(connection: Connection, listens: Listen[]): Promise<void> {
  if (listens.length === 0) return;
  // Changes made in the same tick as this call are coalesced in a microtask queued before it:
  // let them reach the listens first, so they go out before the final results.
  await Promise.resolve();
  for (const listen of listens) listen.end();
  // The engine added its `then` (which writes the answer) when the handler returned; a `then`
  // added now runs after it, so the result is with the transport when this resolves.
  await Promise.all(listens.map((listen) => (listen.answer ?? Promise.resolve()).then(noop, noop)));
  if (connection.transport.requestStreams === true) return;
  await Promise.all(
    listens.map((listen) =>
      connection.notify('notifications/cancelled', {
        requestId: listen.id,
        reason: 'The server ended the subscription',
      }),
    ),
  );
}
