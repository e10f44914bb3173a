/**
 * How the processes of one deployment talk to each other (issue 12): addressed messages between
 * two processes, broadcasts to all, and who is still running. The HTTP handler builds its session
 * routing on it, the server its notification fan-out; the medium is Redis pub/sub in production
 * (`keel-mcp/redis`) and {@link MemoryRelayHub} in tests.
 */

/**
 * What a relay delivers to its process.
 *
 * @example
 * await relay.listen({
 *   message: (from, text) => route(from, JSON.parse(text)),
 *   broadcast: (from, text) => fanOut(JSON.parse(text)),
 * });
 */
export interface RelayListener {
  /** A message `send` addressed to this process. */
  message(from: string, message: string): void;
  /** A message another process `broadcast`. */
  broadcast(from: string, message: string): void;
  /**
   * The medium lost its connection (and may have lost messages in either direction): whatever
   * waits on a message in flight must fail now rather than wait forever. Delivery resumes by
   * itself once the medium is back.
   */
  interrupted?(): void;
}

/**
 * One process's link to the others. Messages are opaque text (the callers' own JSON). Delivery
 * is at most once and, between one sender and one receiver, in the order sent. `send` says
 * whether the addressed process was listening when the medium took the message; a message can
 * still be lost after that (a receiver's connection drops), which `interrupted` reports on the
 * side that lost it, and a crashed process reads as gone in {@link Relay.alive}.
 *
 * @example
 * const relay: Relay = hub.node();
 * await relay.listen({ message: (from, text) => console.log(from, text), broadcast() {} });
 * if (!(await relay.send(otherNodeId, '{"t":"ping"}'))) console.log('nobody there');
 */
export interface Relay {
  /** This process's id: unique in the deployment, new on every start. */
  readonly nodeId: string;
  /**
   * Start receiving (and announcing this process as alive). Call once, before `send`.
   * Rejects with `StoreUnavailableError` when the medium is down.
   */
  listen(listener: RelayListener): Promise<void>;
  /**
   * Hand `message` to the medium for process `to`. Resolves `true` once handed over to a
   * listening `to` (not once processed), `false` when `to` was not listening (gone, or between
   * connections: Redis's PUBLISH counted no subscriber); rejects with `StoreUnavailableError`
   * when the medium is down or does not answer in time.
   */
  send(to: string, message: string): Promise<boolean>;
  /** Like `send`, to every other process (not this one). */
  broadcast(message: string): Promise<void>;
  /**
   * Whether process `nodeId` is running: it listens and its heartbeat is fresh. A process that
   * crashed reads as gone within the relay's liveness window. Rejects with
   * `StoreUnavailableError` when the medium is down.
   */
  alive(nodeId: string): Promise<boolean>;
  /**
   * Optional: the other processes listening now (not this one), in no particular order. A process
   * that drains (issue 28) hands new sessions and requests to one of them; without it, those get
   * 503 + Retry-After. Rejects with `StoreUnavailableError` when the medium is down.
   */
  peers?(): Promise<string[]>;
  /**
   * Stop receiving and announce this process as gone (others see `alive() === false` at once).
   * Bounded in time, idempotent, never rejects.
   */
  close(): Promise<void>;
}
