/**
 * One `subscriptions/listen` (2026-07-28) while it lives: acknowledged first, then the change
 * notifications its filter opted into, each tagged with the subscription id (the listen request's
 * JSON-RPC id), until the client cancels it (its handler is aborted: nothing more is written, no
 * response), the transport drops (the same), or the server ends it gracefully (the one response,
 * after what was queued before it).
 */
import type { RequestContext } from '../../../core/engine/request-context.js';
import { ErrorCode, McpError } from '../../../core/errors.js';
import type { JsonObject, RequestId } from '../../../core/jsonrpc.js';
import { MetaKey } from '../../../core/types/modern.js';
import { SubscriptionMethod, type SubscriptionFilter } from '../../../core/types/subscriptions.js';
import type { ServerSession } from '../../server-session.js';
import { principalOf } from '../back-channel.js';
import {
  filterMatcher,
  honoredFilter,
  isEmptyFilter,
  readFilter,
  wants,
  type FilterMatcher,
} from './listen-filter.js';
import type { ListenClient } from './listen-hub.js';

const noop = (): void => undefined;

/**
 * A live subscription. Created by {@link serveListen}; delivered to by {@link ListenHub.publish}.
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

  constructor(
    readonly session: ServerSession,
    private readonly ctx: RequestContext,
    readonly filter: SubscriptionFilter,
    /** Whom it counts against for `maxSubscriptionsPerClient` (see {@link clientKeyOf}). */
    readonly client: ListenClient,
  ) {
    this.matcher = filterMatcher(filter);
    this.done = new Promise<void>((resolve) => (this.finish = resolve));
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

function tagged(params: JsonObject | undefined, id: RequestId): JsonObject {
  const meta = params?._meta as JsonObject | undefined;
  return { ...params, _meta: { ...meta, [MetaKey.SubscriptionId]: id } };
}

function finalResult(id: RequestId): JsonObject {
  return { _meta: { [MetaKey.SubscriptionId]: id } };
}

/**
 * Whom a listen counts against for `maxSubscriptionsPerClient`: the authenticated principal when
 * the host's authentication gave one (over HTTP each request is a connection of its own, so only
 * the principal ties a client's listens together), else the connection (stdio: one client).
 *
 * @example
 * clientKeyOf(session, ctx); // 'sub:alice' with auth, the session without
 */
export function clientKeyOf(session: ServerSession, ctx: RequestContext): ListenClient {
  return principalOf(ctx.info?.authInfo) ?? session;
}

/**
 * Serve one modern `subscriptions/listen` on `session`: check the filter (`-32602`, also over
 * `maxResourceSubscriptions` URIs) and the limits (`-32010`: `maxSubscriptions` over the server,
 * `maxSubscriptionsPerClient` per {@link clientKeyOf}), acknowledge
 * with the honoured subset, then hold the request open until it is ended. Resolves with the final
 * result on a graceful end (at once when nothing could ever be delivered: an empty honoured
 * filter); rejects with the abort reason when the client cancels or the connection drops (the
 * engine then writes nothing for it).
 *
 * @example
 * // modern-dispatch.ts:
 * if (method === 'subscriptions/listen') return modernResult(server, method, params, await serveListen(session, params, ctx));
 */
export async function serveListen(
  session: ServerSession,
  params: JsonObject,
  ctx: RequestContext,
): Promise<JsonObject> {
  const hub = session.server.listens;
  const requested = readFilter(params, hub.limits.maxUris);
  if (hub.size >= hub.limits.max) {
    throw new McpError(ErrorCode.ServerBusy, `Too many open subscriptions (${hub.limits.max}); retry later`);
  }
  const client = clientKeyOf(session, ctx);
  if (hub.countOf(client) >= hub.limits.maxPerClient) {
    throw new McpError(
      ErrorCode.ServerBusy,
      `Too many open subscriptions for this client (${hub.limits.maxPerClient}, maxSubscriptionsPerClient); close one first`,
    );
  }
  const honored = honoredFilter(requested, session.server.capabilities);
  // Written before the subscription joins the hub: nothing can overtake the acknowledgement.
  void ctx.notify(SubscriptionMethod.Acknowledged, tagged({ notifications: { ...honored } }, ctx.id));
  // Nothing could ever be sent on it: end it now rather than hold a stream open for nothing.
  if (isEmptyFilter(honored)) return finalResult(ctx.id);
  const listen = new Listen(session, ctx, honored, client);
  hub.add(listen);
  try {
    await listen.wait();
  } finally {
    hub.delete(listen);
  }
  return finalResult(ctx.id);
}

/**
 * End `listens` of `session` gracefully and wait until each final result has been handed to the
 * transport (after everything queued before it). On a transport without a stream per request
 * (stdio, memory), each is then also torn down with `notifications/cancelled` naming the listen
 * id (cancellation.mdx: the server's teardown of a listen on stdio); HTTP closes the listen's
 * response stream after the result instead.
 *
 * @example
 * await endListens(session, session.server.listens.of(session));
 */
export async function endListens(session: ServerSession, listens: Listen[]): Promise<void> {
  if (listens.length === 0) return;
  // Changes made in the same tick as this call are coalesced in a microtask queued before it:
  // let them reach the listens first, so they go out before the final results.
  await Promise.resolve();
  for (const listen of listens) listen.end();
  // The engine added its `then` (which writes the answer) when the handler returned; a `then`
  // added now runs after it, so the result is with the transport when this resolves.
  await Promise.all(listens.map((listen) => (listen.answer ?? Promise.resolve()).then(noop, noop)));
  if (session.connection.transport.requestStreams === true) return;
  await Promise.all(
    listens.map((listen) =>
      session.connection.notify('notifications/cancelled', {
        requestId: listen.id,
        reason: 'The server ended the subscription',
      }),
    ),
  );
}
