/**
 * Every live `subscriptions/listen` of one server, and the limits that keep them from exhausting
 * it: open listens over the server (`maxSubscriptions`), open listens per client
 * (`maxSubscriptionsPerClient`), URIs per listen (`maxResourceSubscriptions`, checked when the
 * filter is read).
 */
import { limitOption } from '../../../core/limit-option.js';
import type { Connection } from '../../../core/engine/connection.js';
import type { JsonObject, RequestId } from '../../../core/jsonrpc.js';
import { DEFAULT_MAX_RESOURCE_SUBSCRIPTIONS } from './listen-filter.js';
import type { ViewCaller } from '../../views/visibility.js';
import type { Listen, ListenClient } from './listen.js';

/**
 * @internal Who may get updates of a resource URI (per-caller views): undefined when everyone may
 * (the server has no visibility rule on resources), else a test of the listen's caller.
 */
export type UriView = (uri: string) => ((caller: ViewCaller) => boolean) | undefined;

/**
 * Default of `maxSubscriptions`: open subscriptions per server, over all connections.
 *
 * @example
 * new McpServer(info, { maxSubscriptions: DEFAULT_MAX_SUBSCRIPTIONS / 4 });
 */
export const DEFAULT_MAX_SUBSCRIPTIONS = 1024;

/**
 * Default of `maxSubscriptionsPerClient`. One listen can carry every notification type a client
 * wants, so a well-behaved client needs one or a few; this leaves room for libraries that each
 * open their own.
 *
 * @example
 * new McpServer(info, { maxSubscriptionsPerClient: DEFAULT_MAX_SUBSCRIPTIONS_PER_CLIENT * 2 });
 */
export const DEFAULT_MAX_SUBSCRIPTIONS_PER_CLIENT = 16;

/**
 * The limits of a {@link ListenHub}.
 *
 * @example
 * const limits: ListenLimits = { max: 1024, maxPerClient: 16, maxUris: 1000 };
 */
export interface ListenLimits {
  /** Open subscriptions over the server; the next is refused with `-32010`. */
  readonly max: number;
  /** Open subscriptions per client; the next is refused with `-32010`. */
  readonly maxPerClient: number;
  /** URIs in one listen's `resourceSubscriptions`; more is `-32602`. */
  readonly maxUris: number;
}

/**
 * Every live subscription of one server, so a change reaches each of them on every connection.
 *
 * @example
 * await server.listens.publish('notifications/resources/updated', { uri: 'file:///a.txt' });
 */
export class ListenHub {
  readonly limits: ListenLimits;
  private readonly live = new Set<Listen>();
  /** The same listens by connection and id: a connection's close ends its own. */
  private readonly byConnection = new Map<Connection, Map<RequestId, Listen>>();
  /** Open listens per client (principal or connection). */
  private readonly perClient = new Map<ListenClient, number>();
  /**
   * @internal Set by `McpServer`: a resource update reaches only the listens whose caller may
   * read that resource (also what legacy subscriptions are held to, subscriptions.ts).
   */
  uriView: UriView | undefined = undefined;

  constructor(limits: { readonly [K in keyof ListenLimits]?: ListenLimits[K] | undefined } = {}) {
    this.limits = {
      max: limitOption('maxSubscriptions', limits.max, DEFAULT_MAX_SUBSCRIPTIONS),
      maxPerClient: limitOption(
        'maxSubscriptionsPerClient',
        limits.maxPerClient,
        DEFAULT_MAX_SUBSCRIPTIONS_PER_CLIENT,
      ),
      maxUris: limitOption('maxResourceSubscriptions', limits.maxUris, DEFAULT_MAX_RESOURCE_SUBSCRIPTIONS),
    };
  }

  get size(): number {
    return this.live.size;
  }

  /** Open listens of `client`. */
  countOf(client: ListenClient): number {
    return this.perClient.get(client) ?? 0;
  }

  add(listen: Listen): void {
    if (this.live.has(listen)) return;
    this.live.add(listen);
    this.perClient.set(listen.client, this.countOf(listen.client) + 1);
    let own = this.byConnection.get(listen.connection);
    if (!own) this.byConnection.set(listen.connection, (own = new Map()));
    own.set(listen.id, listen);
  }

  delete(listen: Listen): void {
    if (!this.live.delete(listen)) return;
    const left = this.countOf(listen.client) - 1;
    if (left > 0) this.perClient.set(listen.client, left);
    else this.perClient.delete(listen.client);
    const own = this.byConnection.get(listen.connection);
    if (own?.get(listen.id) !== listen) return;
    own.delete(listen.id);
    if (own.size === 0) this.byConnection.delete(listen.connection);
  }

  /** The live listen `id` of `connection`, if any. */
  find(connection: Connection, id: RequestId): Listen | undefined {
    return this.byConnection.get(connection)?.get(id);
  }

  /** The live listens of `connection` (a snapshot). */
  of(connection: Connection): Listen[] {
    const own = this.byConnection.get(connection);
    return own ? [...own.values()] : [];
  }

  /**
   * Deliver a change notification to every subscription whose filter wants it, and (per-caller
   * views) whose caller `include` admits and may read the updated resource.
   */
  async publish(
    method: string,
    params?: JsonObject,
    include?: (caller: ViewCaller) => boolean,
  ): Promise<void> {
    if (this.live.size === 0) return;
    const uri = params?.uri;
    const readable =
      this.uriView !== undefined && method === 'notifications/resources/updated' && typeof uri === 'string'
        ? this.uriView(uri)
        : undefined;
    const sends: Promise<void>[] = [];
    for (const listen of this.live) {
      if (include !== undefined && !include(listen.caller)) continue;
      if (readable !== undefined && !readable(listen.caller)) continue;
      sends.push(listen.deliver(method, params));
    }
    await Promise.all(sends);
  }
}
