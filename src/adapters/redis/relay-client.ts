/**
 * The parts of a Redis client {@link RedisRelay} uses, as structural types: node-redis
 * (`@redis/client` 5 and 6, `redis`) clients fit without Keel importing the library.
 */

/** Connection events the relay watches to learn that messages may have been lost. */
type ConnectionEvent = 'error' | 'ready' | 'reconnecting' | 'end' | 'terminated';

/**
 * The pub/sub connection the relay makes with `client.duplicate()` and owns.
 *
 * @example
 * const subscriber: RedisRelaySubscriber = client.duplicate();
 */
export interface RedisRelaySubscriber {
  connect(): Promise<unknown>;
  subscribe(channels: string[], listener: (message: string, channel: string) => void): Promise<unknown>;
  unsubscribe(channels?: string[]): Promise<unknown>;
  /** Graceful close (node-redis 5+); `quit` is used when there is no `close`. */
  close?(): Promise<unknown>;
  quit?(): Promise<unknown>;
  /** Drop the socket at once: used when a graceful close does not finish in time. */
  destroy?(): void;
  on(event: ConnectionEvent, listener: (...args: unknown[]) => void): unknown;
  off(event: ConnectionEvent, listener: (...args: unknown[]) => void): unknown;
}

/**
 * The client the relay publishes and keeps its heartbeat with: the one the other stores share.
 *
 * @example
 * const client: RedisRelayClient = createClient({ url, disableOfflineQueue: true });
 */
export interface RedisRelayClient {
  publish(channel: string, message: string): Promise<unknown>;
  exists(keys: string[]): Promise<number>;
  /** `{ PX }` rather than 6.x's `expiration`: the one spelling every major in the peer range takes. */
  set(key: string, value: string, options: { PX: number }): Promise<unknown>;
  del(keys: string[]): Promise<unknown>;
  /** `PUBSUB CHANNELS <pattern>`: which processes listen (for a draining process's hand-over). */
  pubSubChannels?(pattern?: string): Promise<string[]>;
  duplicate(): RedisRelaySubscriber;
  on(event: ConnectionEvent, listener: (...args: unknown[]) => void): unknown;
  off(event: ConnectionEvent, listener: (...args: unknown[]) => void): unknown;
}

/** Drop a subscriber connection at once; one already closed has nothing left to tear down. */
export function destroy(subscriber: RedisRelaySubscriber): void {
  try {
    subscriber.destroy?.();
  } catch {
    // Already closed: nothing left to tear down.
  }
}
