/**
 * {@link Relay} on Redis pub/sub: the messages between the processes of one deployment, and a
 * heartbeat key per process that says which of them are running.
 */
import type { Logger } from '../../core/engine/connection-types.js';
import type { Relay, RelayListener } from '../../hosts/http/cluster/relay.js';
import { rejection } from './bounded.js';
import { checkName } from './namespace.js';
import { atLeast, RedisAccess } from './redis-access.js';
import { destroy, type RedisRelayClient, type RedisRelaySubscriber } from './relay-client.js';

/**
 * @example
 * new RedisRelay({ client, namespace: 'app', heartbeatMs: 500, commandTimeoutMs: 1_000 });
 */
export interface RedisRelayOptions {
  /** A connected client with an `'error'` listener, best with `disableOfflineQueue: true`. */
  client: RedisRelayClient;
  /** Every key and channel is `keel:<namespace>:...`. Letters, digits, `.`, `_`, `-`. Default `'default'`. */
  namespace?: string | undefined;
  /** This process's id (letters, digits, `.`, `_`, `-`). Default: a random UUID, new on every start. */
  nodeId?: string;
  /** How often the liveness key is refreshed. Default 1,000 ms. */
  heartbeatMs?: number | undefined;
  /**
   * The liveness window: a process that stops refreshing reads as gone after this long, and the
   * others drop its sessions. Default 5 × `heartbeatMs`, so a process that misses a few beats
   * (a long GC pause, a CPU-bound tool blocking its event loop for 3 s) is not taken for dead.
   */
  ttlMs?: number | undefined;
  /** Every command fails with {@link StoreUnavailableError} after this long. Default 2,000 ms. */
  commandTimeoutMs?: number | undefined;
  /** Told about failed heartbeats, lost connections and listeners that threw (nothing is thrown at the caller). */
  logger?: Logger | undefined;
}

const STORE = 'redis relay';
/** Default liveness window, in heartbeats (see {@link RedisRelayOptions.ttlMs}). */
const LIVENESS_BEATS = 5;
type Connection = 'client' | 'subscriber';

/**
 * Channels: `keel:<ns>:relay:<nodeId>` (addressed to one process) and `keel:<ns>:relay-all`
 * (broadcasts; a process drops its own). Each message is `<from>\n<text>`. Liveness: the key
 * `keel:<ns>:node:<nodeId>`, set with a TTL of `ttlMs` on listen and every `heartbeatMs`, deleted
 * on close. Receiving uses its own connection (`client.duplicate()`), made by `listen()`. When
 * either connection drops, and again when it is back, `listener.interrupted()` is called:
 * Redis pub/sub does not keep messages for a subscriber that is away. One Redis (with replicas /
 * Sentinel), not Redis Cluster: see {@link RedisRelay.send}.
 *
 * @example
 * const relay = new RedisRelay({ client, namespace: 'app' });
 * await relay.listen({ message: (from, text) => console.log(from, text), broadcast() {} });
 * await relay.send(otherNodeId, '{"t":"ping"}');
 * await relay.close();
 */
export class RedisRelay implements Relay {
  readonly nodeId: string;
  private readonly redis: RedisAccess<RedisRelayClient>;
  private readonly heartbeatMs: number;
  private readonly ttlMs: number;
  private readonly logger: Logger | undefined;
  private listener: RelayListener | undefined;
  private subscriber: RedisRelaySubscriber | undefined;
  private starting: Promise<void> | undefined;
  private closing: Promise<void> | undefined;
  private timer: ReturnType<typeof setInterval> | undefined;
  private beating: Promise<void> | undefined;
  /** Connections that dropped and are not ready again yet (one `interrupted` per outage). */
  private readonly lost = new Set<Connection>();

  constructor(options: RedisRelayOptions) {
    this.redis = new RedisAccess('RedisRelay', STORE, options);
    this.nodeId = checkName('RedisRelay', 'nodeId', options.nodeId ?? crypto.randomUUID());
    this.heartbeatMs = atLeast(options.heartbeatMs, 1_000);
    this.ttlMs = atLeast(options.ttlMs, LIVENESS_BEATS * this.heartbeatMs, this.heartbeatMs + 1);
    this.logger = options.logger;
  }

  /** The liveness key of process `nodeId`. */
  nodeKey(nodeId: string): string {
    return `${this.redis.prefix}:node:${nodeId}`;
  }

  private channel(nodeId: string): string {
    return `${this.redis.prefix}:relay:${nodeId}`;
  }

  private get allChannel(): string {
    return `${this.redis.prefix}:relay-all`;
  }

  listen(listener: RelayListener): Promise<void> {
    if (this.closing) return Promise.reject(new Error('RedisRelay: closed'));
    if (this.listener) return Promise.reject(new Error('listen() was already called'));
    this.listener = listener;
    this.starting = this.start().catch((error: unknown) => {
      this.listener = undefined; // a failed listen can be retried
      throw error;
    });
    return this.starting;
  }

  private async start(): Promise<void> {
    const subscriber = this.redis.client.duplicate();
    // node-redis ends the process on an 'error' event nobody listens to: never removed.
    subscriber.on('error', (error) => this.logger?.debug('redis relay: subscriber connection', error));
    try {
      await this.redis.attempt('listen', () => subscriber.connect());
      await this.redis.attempt('listen', () =>
        subscriber.subscribe([this.channel(this.nodeId), this.allChannel], this.receive),
      );
      await this.redis.attempt('listen', () => this.setAliveKey());
    } catch (error) {
      destroy(subscriber);
      throw error;
    }
    this.subscriber = subscriber;
    for (const event of ['reconnecting', 'end', 'terminated'] as const)
      subscriber.on(event, this.subscriberLost);
    subscriber.on('ready', this.subscriberBack);
    this.redis.client.on('reconnecting', this.clientLost);
    this.redis.client.on('ready', this.clientBack);
    this.timer = setInterval(() => this.beat(), this.heartbeatMs);
    (this.timer as { unref?: () => void }).unref?.();
  }

  /**
   * PUBLISH answers how many subscribers took the message: 0 (`false`) means `to` is not
   * listening (never did, closed, or its subscriber connection is gone). That count is exact on
   * one server only: Keel supports a single Redis (with replicas or Sentinel), every process on
   * its primary. On Redis Cluster PUBLISH counts only the subscribers of the node that took it
   * (sharded pub/sub: of the shard), so a process listening elsewhere would read as absent.
   */
  send(to: string, message: string): Promise<boolean> {
    return this.publish('send', this.channel(to), message).then(someone);
  }

  broadcast(message: string): Promise<void> {
    return this.publish('broadcast', this.allChannel, message).then(nothing);
  }

  /** The hot path (one per relayed chunk): no thunk, one bound. */
  private publish(operation: string, channel: string, message: string): Promise<unknown> {
    let command: Promise<unknown>;
    try {
      command = this.redis.client.publish(channel, `${this.nodeId}\n${message}`);
    } catch (error) {
      command = rejection(error); // a closed client throws
    }
    return this.redis.bounded(operation, command);
  }

  /**
   * The processes subscribed to their relay channel now (one `PUBSUB CHANNELS`), this one left out.
   * A client without `pubSubChannels` reads no peers.
   */
  async peers(): Promise<string[]> {
    const client = this.redis.client;
    if (client.pubSubChannels === undefined) return [];
    const prefix = this.channel('');
    const channels = await this.redis.attempt('peers', () => client.pubSubChannels!(`${prefix}*`));
    return channels.map((channel) => channel.slice(prefix.length)).filter((id) => id !== this.nodeId);
  }

  async alive(nodeId: string): Promise<boolean> {
    return (await this.redis.attempt('alive', () => this.redis.client.exists([this.nodeKey(nodeId)]))) === 1;
  }

  close(): Promise<void> {
    return (this.closing ??= this.shutdown());
  }

  private async shutdown(): Promise<void> {
    await this.starting?.catch(() => undefined);
    this.lost.clear();
    clearInterval(this.timer);
    this.timer = undefined;
    this.redis.client.off('reconnecting', this.clientLost);
    this.redis.client.off('ready', this.clientBack);
    const subscriber = this.subscriber;
    if (!subscriber) {
      this.listener = undefined;
      return;
    }
    this.subscriber = undefined;
    for (const event of ['reconnecting', 'end', 'terminated'] as const)
      subscriber.off(event, this.subscriberLost);
    subscriber.off('ready', this.subscriberBack);
    // Unsubscribe before anything else, still listening: a message published before it is
    // delivered before its reply (Redis keeps that order), so the process can still answer it
    // (a draining process says "moved"); one published after it counts no subscriber here, so
    // its sender routes elsewhere. Deleting the liveness key first would make senders of the
    // first kind fail their requests as if this process had crashed (issue 28).
    await this.redis.attempt('close', () => subscriber.unsubscribe()).catch(() => undefined);
    this.listener = undefined;
    const quit = async () => {
      await (subscriber.close ?? subscriber.quit)?.call(subscriber);
    };
    // Both within one command timeout: a hung Redis must not hold the process's shutdown.
    await Promise.all([
      this.beating,
      this.redis
        .attempt('close', () => this.redis.client.del([this.nodeKey(this.nodeId)]))
        .catch((error: unknown) => {
          this.logger?.error('redis relay: could not delete the liveness key (it expires by itself)', error);
        }),
      this.redis.attempt('close', quit).catch(() => destroy(subscriber)),
    ]);
  }

  /** Messages arrive inside the client's reply parser: nothing may throw out of here. */
  private readonly receive = (raw: string, channel: string): void => {
    const cut = raw.indexOf('\n');
    const listener = this.listener;
    if (cut <= 0 || !listener) return;
    const from = raw.slice(0, cut);
    const text = raw.slice(cut + 1);
    try {
      if (channel !== this.allChannel) listener.message(from, text);
      else if (from !== this.nodeId) listener.broadcast(from, text);
    } catch (error) {
      this.logger?.error('redis relay: a listener threw (delivery goes on)', error);
    }
  };

  private readonly clientLost = (): void => this.connectionLost('client');
  private readonly clientBack = (): void => this.connectionBack('client');
  private readonly subscriberLost = (): void => this.connectionLost('subscriber');
  private readonly subscriberBack = (): void => this.connectionBack('subscriber');

  private connectionLost(connection: Connection): void {
    if (this.lost.has(connection)) return;
    this.lost.add(connection);
    this.logger?.error(`redis relay: the ${connection} connection dropped; messages may be lost`);
    this.interrupt();
  }

  /** Back: exchanges started while it was away may have lost their messages too; the key may be gone. */
  private connectionBack(connection: Connection): void {
    if (!this.lost.delete(connection)) return;
    this.interrupt();
    this.beat(true);
  }

  private interrupt(): void {
    try {
      this.listener?.interrupted?.();
    } catch (error) {
      this.logger?.error('redis relay: interrupted() threw', error);
    }
  }

  /**
   * One heartbeat at a time; a failed one is retried on the next tick. `now`: a connection is
   * back (the key may be gone with a restarted Redis): one more beat right after a beat still in
   * flight, which may have been sent to the old server, rather than a tick later.
   */
  private beat(now = false): void {
    if (!this.listener) return;
    if (this.beating) {
      if (now) void this.beating.then(() => this.beat());
      return;
    }
    this.beating = this.redis
      .attempt('heartbeat', () => this.setAliveKey())
      .then(
        () => undefined,
        (error: unknown) => this.logger?.error('redis relay: heartbeat failed (retried)', error),
      );
    void this.beating.finally(() => (this.beating = undefined));
  }

  private setAliveKey(): Promise<unknown> {
    return this.redis.client.set(this.nodeKey(this.nodeId), '1', { PX: this.ttlMs });
  }
}

/** PUBLISH's reply: how many subscribers took the message. */
function someone(receivers: unknown): boolean {
  return Number(receivers) > 0;
}

function nothing(): void {}
