/**
 * The session table: creation, lookup, LRU order, idle expiry, eviction and shutdown, all ending
 * a session through one path ({@link SessionManager.terminate}).
 */
import type { ConnectionOptions, Logger } from '../../../core/engine/connection.js';
import type { Connectable } from '../../../server/server.js';
import type { EventStore } from './event-store.js';
import {
  DEFAULT_IDLE_MS,
  DEFAULT_MAX_SESSIONS,
  outputBudgetOf,
  type HttpHandlerOptions,
  type SessionEndReason,
} from './options.js';
import { RecencyList } from './recency-list.js';
import { HttpServerTransport, type TransportHost } from './session-transport.js';
import type { KeepAlive } from './keep-alive.js';

const VISIBLE_ASCII = /^[\x21-\x7e]+$/;

function randomId(): string {
  return globalThis.crypto.randomUUID();
}

/**
 * Owns every session of one handler. Sessions are found by id in a `Map` and kept in
 * least-recently-used order in a {@link RecencyList}, so eviction takes the first idle entry and
 * the sweeper stops at the first recent one. One unref'd timer sweeps, and only while sessions
 * exist.
 *
 * @example
 * const manager = new SessionManager(server, options, store, keepAlive, logger);
 * const transport = manager.create(); // undefined when full and nothing can be evicted
 */
export class SessionManager implements TransportHost {
  private readonly sessions = new Map<string, HttpServerTransport>();
  private readonly recency = new RecencyList<HttpServerTransport>();
  /** Stateless exchanges in flight, so shutdown can reach them too. */
  private readonly stateless = new Set<HttpServerTransport>();
  private readonly idleMs: number;
  private readonly max: number;
  private readonly generateId: () => string;
  private readonly connection: ConnectionOptions | undefined;
  private sweepTimer: ReturnType<typeof setTimeout> | undefined;
  private accepting = true;
  readonly retryMs: number;
  readonly budget: ReturnType<typeof outputBudgetOf>;

  constructor(
    private readonly target: Connectable,
    private readonly options: HttpHandlerOptions,
    readonly store: EventStore | undefined,
    readonly keepAlive: KeepAlive | undefined,
    readonly logger: Logger,
    retryMs: number,
  ) {
    const sessions = options.sessions || {};
    this.idleMs = Math.max(1, sessions.idleMs ?? DEFAULT_IDLE_MS);
    this.max = Math.max(1, sessions.max ?? DEFAULT_MAX_SESSIONS);
    this.generateId = sessions.generateId ?? randomId;
    this.connection = options.connection;
    this.retryMs = retryMs;
    this.budget = outputBudgetOf(options);
  }

  /** Live stateful sessions. */
  get size(): number {
    return this.sessions.size;
  }

  /** Live sessions plus stateless exchanges in flight. */
  get total(): number {
    return this.sessions.size + this.stateless.size;
  }

  /** The live session with this id (marked as used), or undefined (unknown, expired, deleted). */
  get(sessionId: string): HttpServerTransport | undefined {
    const transport = this.sessions.get(sessionId);
    if (transport) this.touched(transport);
    return transport;
  }

  /** A new session, or undefined when shutting down or full with no idle session to evict. */
  create(): HttpServerTransport | undefined {
    if (!this.accepting) return undefined;
    if (this.sessions.size >= this.max && !this.evictOne()) return undefined;
    const sessionId = this.generateId();
    if (!VISIBLE_ASCII.test(sessionId) || this.sessions.has(sessionId)) {
      throw new Error('generateId must return unique, visible-ASCII session ids');
    }
    const transport = new HttpServerTransport(this, sessionId);
    this.sessions.set(sessionId, transport);
    this.recency.touch(transport);
    this.attach(transport);
    this.scheduleSweep();
    this.notify(() => this.options.onSessionStart?.(sessionId));
    return transport;
  }

  /** A connection for one stateless exchange (it closes itself after its response). */
  createStateless(): HttpServerTransport | undefined {
    if (!this.accepting) return undefined;
    const transport = new HttpServerTransport(this, undefined);
    this.stateless.add(transport);
    this.attach(transport);
    return transport;
  }

  private attach(transport: HttpServerTransport): void {
    try {
      transport.session = this.target.connect(transport, this.connection);
    } catch (error) {
      this.forget(transport, 'closed');
      void transport.close();
      throw error;
    }
  }

  /**
   * The one way a session ends (DELETE, expiry, eviction, shutdown): forget it at once (later
   * requests get 404), then close its connection — the engine aborts its handlers, fails its
   * pending requests, answers what it must, and closes the transport, which ends every stream.
   */
  terminate(transport: HttpServerTransport, reason: SessionEndReason): Promise<void> {
    if (transport.ending) return transport.session?.closed ?? Promise.resolve();
    this.forget(transport, reason);
    return transport.session ? transport.session.close() : transport.close();
  }

  /** End every session and stateless exchange; resolves within `deadlineMs`. */
  async shutdown(deadlineMs: number): Promise<void> {
    this.accepting = false;
    this.stopSweep();
    const all = [...this.sessions.values(), ...this.stateless];
    const closing = Promise.all(all.map((transport) => this.terminate(transport, 'shutdown')));
    const finished = await within(closing, deadlineMs);
    // Past the deadline, cut the streams; the engines finish their teardown on their own.
    if (!finished) for (const transport of all) void transport.close();
    this.keepAlive?.stop();
  }

  touched(transport: HttpServerTransport): void {
    transport.lastSeen = Date.now();
    const sessionId = transport.sessionId;
    if (sessionId !== undefined && this.sessions.get(sessionId) === transport) this.recency.touch(transport);
  }

  transportClosed(transport: HttpServerTransport): void {
    if (!transport.ending) this.forget(transport, 'closed');
  }

  initializeFailed(transport: HttpServerTransport): void {
    // Deferred: this runs inside the engine's write of the failed initialize response.
    queueMicrotask(() => void this.terminate(transport, 'closed'));
  }

  private forget(transport: HttpServerTransport, reason: SessionEndReason): void {
    transport.ending = true;
    transport.endReason = reason;
    const sessionId = transport.sessionId;
    if (sessionId === undefined) {
      this.stateless.delete(transport);
      return;
    }
    if (this.sessions.get(sessionId) === transport) {
      this.sessions.delete(sessionId);
      this.recency.remove(transport);
    }
    if (this.sessions.size === 0) this.stopSweep();
    this.notify(() => this.options.onSessionEnd?.(sessionId, reason));
  }

  /** Evict the least recently used session with no open exchange. */
  private evictOne(): boolean {
    for (let transport = this.recency.oldest; transport; transport = transport.newer) {
      if (transport.attached === 0) {
        void this.terminate(transport, 'evicted');
        return true;
      }
    }
    return false;
  }

  private scheduleSweep(): void {
    if (this.sweepTimer !== undefined || !Number.isFinite(this.idleMs)) return;
    const interval = Math.min(Math.max(this.idleMs / 2, 1), 60_000);
    this.sweepTimer = setTimeout(sweep, interval, this);
    (this.sweepTimer as { unref?: () => void }).unref?.();
  }

  private stopSweep(): void {
    if (this.sweepTimer !== undefined) clearTimeout(this.sweepTimer);
    this.sweepTimer = undefined;
  }

  /** @internal Expire idle sessions; runs from the sweep timer. */
  sweep(): void {
    this.sweepTimer = undefined;
    const cutoff = Date.now() - this.idleMs;
    let next: HttpServerTransport | undefined;
    for (let transport = this.recency.oldest; transport; transport = next) {
      // LRU order: everything after the first recent session is recent too.
      if (transport.lastSeen > cutoff) break;
      next = transport.newer; // terminate() takes the session out of the list
      if (transport.attached === 0) void this.terminate(transport, 'expired');
    }
    if (this.sessions.size > 0) this.scheduleSweep();
  }

  private notify(callback: () => void): void {
    try {
      callback();
    } catch (error) {
      this.logger.error('session callback failed', error);
    }
  }
}

function sweep(manager: SessionManager): void {
  manager.sweep();
}

/** True if `work` settled within `ms`. */
function within(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const limit = new Promise<boolean>((resolve) => {
    timer = setTimeout(resolve, ms, false);
  });
  return Promise.race([work.then(() => true), limit]).finally(() => clearTimeout(timer));
}
