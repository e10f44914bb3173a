/**
 * Several McpServers that stand for several processes of one deployment, their notification
 * fan-out linked through MemoryRelayHub nodes (as the HTTP handler will link it over its
 * backplane's relay), and clients over recording memory pairs so a test can count exactly what
 * each server wrote to each client.
 *
 * `quiesce()` is the event that replaces sleeping before "nothing more arrived": every server
 * raises a barrier resource update, twice, and every client waits until it has every barrier of
 * the round. The relay keeps each sender's order and a receiver writes a peer's notification
 * synchronously, so once a client has a server's barrier it has everything that server sent or
 * forwarded before it.
 */
import { afterEach, expect } from 'vitest';
import type { McpClientOptions, Subscription } from 'keel-mcp/client';
import type { Logger, JsonObject, JsonRpcMessage } from 'keel-mcp/core';
import { McpServer, type FanoutLink, type FanoutMembership } from 'keel-mcp/server';
import { MemoryRelayHub, type Relay } from 'keel-mcp/http';
import { within } from '../helpers/guard.js';
import type { RecordingTransport } from '../helpers/recording-transport.js';
import { useModern } from '../client-modern/helpers.js';

export const WATCHED = 'test://watched';
export const UPDATED = 'notifications/resources/updated';

/** A logger that keeps what it was told. */
export class MemoryLogger implements Logger {
  readonly debugs: string[] = [];
  readonly errors: { message: string; detail: unknown }[] = [];
  debug(message: string): void {
    this.debugs.push(message);
  }
  error(message: string, detail?: unknown): void {
    this.errors.push({ message, detail });
  }
}

/** One "process": a server, its relay node, its fan-out membership and the publishes it made. */
export interface Node {
  readonly server: McpServer;
  readonly relay: Relay;
  readonly membership: FanoutMembership;
  readonly logger: MemoryLogger;
  /** Every text the server handed to its link. */
  readonly published: string[];
}

/** A client of one node, with what that node's server wrote to it. */
export interface Peer {
  readonly node: Node;
  /** The server's side of the pair: `sent` = what the server wrote to this client. */
  readonly wire: RecordingTransport;
  readonly subscription?: Subscription;
}

/** A server with one resource (so it declares `resources.subscribe`) and one tool. */
export function makeServer(name: string): McpServer {
  const server = new McpServer({ name, version: '1' }, { onerror: undefined });
  server.resource('watched', WATCHED, {}, () => 'x');
  server.tool('noop', { description: 'does nothing' }, () => 'ok');
  return server;
}

/** Join `server` to the hub through a new node (what the HTTP handler does with its relay). */
export async function joinHub(
  server: McpServer,
  hub: MemoryRelayHub,
  logger = new MemoryLogger(),
): Promise<Node> {
  const relay = hub.node();
  const published: string[] = [];
  const link: FanoutLink = {
    publish: (message) => {
      published.push(message);
      return relay.broadcast(message);
    },
  };
  const membership = server.joinFanout(link, logger);
  await relay.listen({ message() {}, broadcast: (_from, text) => membership.receive(text) });
  return { server, relay, membership, logger, published };
}

/** Count of `method` (and `uri`, for resource updates) the server wrote to this client. */
export function count(peer: Peer, method: string, uri?: string): number {
  return peer.wire.sent.filter((m: JsonRpcMessage) => {
    if (!('method' in m) || 'id' in m || m.method !== method) return false;
    return uri === undefined || m.params?.uri === uri;
  }).length;
}

/**
 * Resolves once the server wrote `n` of `method` (for `uri`) to this client; fails after 5 s.
 * The server's writes are recorded synchronously and the relay and memory transports run on
 * promises, so checking once per event-loop turn sees each write in the turn it happens.
 */
export async function arrived(peer: Peer, method: string, uri?: string, n = 1): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (count(peer, method, uri) < n && Date.now() < deadline) await tick();
  expect(
    count(peer, method, uri),
    `${method} ${uri ?? ''} on ${peer.node.server.info.name}`,
  ).toBeGreaterThanOrEqual(n);
}

/** One turn of the event loop (setImmediate: memory transports and the relay run on promises). */
function tick(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

const barrier = (i: number): string => `test://barrier/${i}`;

/**
 * A deployment of `size` servers on one hub, legacy and modern clients on them, and `quiesce`.
 * Cleans up after each test (clients first, then relays and servers).
 */
export function useDeployment(): {
  hub: () => MemoryRelayHub;
  deploy: (size: number) => Promise<Node[]>;
  legacy: (node: Node, uris?: string[]) => Promise<Peer>;
  modern: (node: Node, filter: JsonObject) => Promise<Peer>;
  quiesce: () => Promise<void>;
} {
  const { connect } = useModern();
  let hub = new MemoryRelayHub();
  let nodes: Node[] = [];
  let peers: Peer[] = [];
  let round = 0;
  afterEach(async () => {
    for (const node of nodes) {
      node.membership.leave();
      await node.relay.close();
    }
    nodes = [];
    peers = [];
    round = 0;
    hub = new MemoryRelayHub();
  });

  const barriers = (): string[] => nodes.map((_, i) => barrier(i));

  return {
    hub: () => hub,
    deploy: async (size) => {
      for (let i = 0; i < size; i++) nodes.push(await joinHub(makeServer(`server-${i + 1}`), hub));
      return nodes;
    },
    legacy: async (node, uris = [WATCHED]) => {
      const options: McpClientOptions = { era: 'legacy' };
      const { client, serverWire } = await connect(node.server, options);
      for (const uri of [...uris, ...barriers()]) await client.subscribeResource(uri);
      const peer = { node, wire: serverWire };
      peers.push(peer);
      return peer;
    },
    modern: async (node, filter) => {
      const { client, serverWire } = await connect(node.server, { era: 'modern' });
      const subscription = client.listen({
        ...filter,
        resourceSubscriptions: [...((filter.resourceSubscriptions as string[]) ?? []), ...barriers()],
      });
      await within(subscription.acknowledged, 5_000, 'listen acknowledged');
      const peer = { node, wire: serverWire, subscription };
      peers.push(peer);
      return peer;
    },
    quiesce: async () => {
      for (let pass = 0; pass < 2; pass++) {
        round++;
        for (const [i, node] of nodes.entries()) await node.server.notifyResourceUpdated(barrier(i));
        for (const peer of peers) for (const uri of barriers()) await arrived(peer, UPDATED, uri, round);
      }
    },
  };
}
