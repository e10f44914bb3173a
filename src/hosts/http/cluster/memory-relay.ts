/**
 * {@link Relay} inside one process: several HTTP handlers that stand for several processes
 * (tests, examples, and the reference the Redis relay's contract suite is checked against).
 */
import { StoreUnavailableError } from '../../../core/errors.js';
import type { Relay, RelayListener } from './relay.js';

const RELAY = 'memory relay';

/**
 * The shared medium: every {@link MemoryRelayHub.node} it hands out can reach the others.
 * `crash(nodeId)` makes a node vanish without its `close()` (as a killed process would), and
 * `down` makes every operation fail as if the medium were unreachable.
 *
 * @example
 * const hub = new MemoryRelayHub();
 * const a = hub.node(), b = hub.node();
 * await b.listen({ message: (from, text) => console.log(from, text), broadcast() {} });
 * await a.send(b.nodeId, 'hello'); // true: b listens
 */
export class MemoryRelayHub {
  /** @internal Listening nodes by id. */
  readonly nodes = new Map<string, MemoryRelay>();
  /** While true, every operation rejects with `StoreUnavailableError` (the medium is down). */
  down = false;
  private count = 0;

  /** A new process's relay (`nodeId` defaults to `node-1`, `node-2`, ...). */
  node(nodeId = `node-${++this.count}`): Relay {
    return new MemoryRelay(this, nodeId);
  }

  /** The node vanishes as if its process were killed: it neither receives nor reads as alive. */
  crash(nodeId: string): void {
    const node = this.nodes.get(nodeId);
    this.nodes.delete(nodeId);
    if (node) node.crashed = true;
  }
}

class MemoryRelay implements Relay {
  private listener: RelayListener | undefined;
  /** Keeps each sender's messages in order, delivered after the current task (never inline). */
  private tail: Promise<void> = Promise.resolve();
  /** @internal Set by `hub.crash`: this node stops sending too. */
  crashed = false;

  constructor(
    private readonly hub: MemoryRelayHub,
    readonly nodeId: string,
  ) {}

  listen(listener: RelayListener): Promise<void> {
    if (this.hub.down) return Promise.reject(new StoreUnavailableError(RELAY, 'listen'));
    if (this.listener) return Promise.reject(new Error('listen() was already called'));
    this.listener = listener;
    this.hub.nodes.set(this.nodeId, this);
    return Promise.resolve();
  }

  send(to: string, message: string): Promise<boolean> {
    if (this.hub.down) return Promise.reject(new StoreUnavailableError(RELAY, 'send'));
    // A crashed sender's messages vanish, as a dead process sends nothing.
    if (this.crashed) return Promise.resolve(true);
    if (!this.hub.nodes.has(to)) return Promise.resolve(false);
    this.post([to], (node) => node.listener?.message(this.nodeId, message));
    return Promise.resolve(true);
  }

  broadcast(message: string): Promise<void> {
    if (this.hub.down) return Promise.reject(new StoreUnavailableError(RELAY, 'broadcast'));
    const others = [...this.hub.nodes.keys()].filter((id) => id !== this.nodeId);
    if (!this.crashed) this.post(others, (node) => node.listener?.broadcast(this.nodeId, message));
    return Promise.resolve();
  }

  alive(nodeId: string): Promise<boolean> {
    if (this.hub.down) return Promise.reject(new StoreUnavailableError(RELAY, 'alive'));
    return Promise.resolve(this.hub.nodes.has(nodeId));
  }

  /** The other nodes listening on the hub. */
  peers(): Promise<string[]> {
    if (this.hub.down) return Promise.reject(new StoreUnavailableError(RELAY, 'peers'));
    return Promise.resolve([...this.hub.nodes.keys()].filter((id) => id !== this.nodeId));
  }

  close(): Promise<void> {
    if (this.hub.nodes.get(this.nodeId) === this) this.hub.nodes.delete(this.nodeId);
    this.listener = undefined;
    return Promise.resolve();
  }

  /** Deliver to the nodes listening at delivery time; a listener that throws hurts nobody else. */
  private post(targets: string[], deliver: (node: MemoryRelay) => void): void {
    this.tail = this.tail.then(() => {
      for (const id of targets) {
        const node = this.hub.nodes.get(id);
        if (!node) continue;
        try {
          deliver(node);
        } catch {
          // A listener's failure is its own; the medium keeps delivering.
        }
      }
    });
  }
}
