/**
 * `ctx.state` (issue 28): a small key-value store per session and per principal, for handlers in
 * both eras. Made on first use: a request that never touches it costs nothing.
 */
import { InMemoryStateStore } from './memory-state-store.js';
import { stateBounds, type StateOptions } from './state-options.js';
import { StateScope } from './state-scope.js';
import type { StateStore, StateWriteOptions } from './state-store.js';

/**
 * The server's side of `ctx.state`: its store and bounds (made on first use).
 *
 * @example
 * const state = new ServerState(options.state);
 */
export class ServerState {
  private made: StateStore | undefined;
  readonly bounds: { session: StateWriteOptions; principal: StateWriteOptions };

  constructor(private readonly options: StateOptions = {}) {
    this.bounds = stateBounds(options);
  }

  get store(): StateStore {
    return (this.made ??= this.options.store ?? new InMemoryStateStore());
  }

  private readonly watched = new WeakSet<object>();

  /**
   * The session scope of `session` is in use: when the session ends its values go too, unless
   * the store is shared (another process may carry the session on; the scope's TTL ends it).
   */
  watchSession(session: { readonly closed: Promise<void> }, sessionKey: string): void {
    if (this.watched.has(session) || this.store.sharedAcrossProcesses) return;
    this.watched.add(session);
    void session.closed.then(() => this.store.clear(`session:${sessionKey}`));
  }
}

/**
 * `ctx.state`: `session` (the legacy session's values; 2026-07-28 requests and stateless HTTP have
 * no session) and `principal` (the verified caller's values; without authorization, over stdio or
 * in memory, the one local user; an HTTP request without a verified caller has none).
 *
 * @example
 * server.tool('count', { description: 'Counts my calls' }, async (_args, ctx) => String(await ctx.state.principal.increment('calls')));
 */
export class HandlerState {
  private sessionScope: StateScope | undefined;
  private principalScope: StateScope | undefined;

  /** @internal */
  constructor(
    private readonly server: ServerState,
    /** The session's id when this request has one that lasts (legacy era), else undefined. */
    private readonly sessionKey: string | undefined,
    /** The principal's key, or undefined when this request has none. */
    private readonly principalKey: string | undefined,
    /** Called once, the first time the session scope is used (to clear it when the session ends). */
    private readonly onSessionUse?: (sessionKey: string) => void,
  ) {}

  /** This session's values. Throws when the request has no session (2026-07-28, stateless HTTP). */
  get session(): StateScope {
    const key = this.sessionKey;
    if (key === undefined)
      throw new Error(
        'ctx.state.session: this request has no session (2026-07-28 requests and stateless HTTP have none); use ctx.state.principal',
      );
    if (this.sessionScope === undefined) {
      this.onSessionUse?.(key);
      this.sessionScope = new StateScope(this.server.store, `session:${key}`, this.server.bounds.session);
    }
    return this.sessionScope;
  }

  /** The caller's values. Throws when an HTTP request carries no verified principal (auth off). */
  get principal(): StateScope {
    const key = this.principalKey;
    if (key === undefined)
      throw new Error(
        'ctx.state.principal: this request has no verified principal (turn on `auth` for HTTP)',
      );
    return (this.principalScope ??= new StateScope(
      this.server.store,
      `principal:${key}`,
      this.server.bounds.principal,
    ));
  }
}
