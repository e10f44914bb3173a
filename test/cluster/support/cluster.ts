/**
 * Three HTTP handlers in one process standing for three processes behind a load balancer: one
 * MemoryRelayHub, one InMemorySessionStore, one low-level Server per handler. Each relay is
 * wrapped to record what it sends (and to catch a send after close).
 */
import { StoreUnavailableError, type JsonObject, type Transport } from 'keel-mcp/core';
import { Server, type ServerSession } from 'keel-mcp/server';
import {
  createHttpHandler,
  InMemorySessionStore,
  MemoryRelayHub,
  type HttpHandler,
  type HttpHandlerOptions,
  type HttpRequestExtra,
  type Relay,
  type RelayListener,
  type SessionStore,
} from 'keel-mcp/http';
import { Probes } from '../../http-server/support/harness.js';

export const PROTOCOL = '2025-11-25';
export const JSON_AND_SSE = 'application/json, text/event-stream';

/** A relay that records its sends and refuses to be used after `close()` (a test failure). */
export class RecordingRelay implements Relay {
  readonly sent: { to: string; message: JsonObject }[] = [];
  readonly afterClose: string[] = [];
  private closed = false;
  private listener: RelayListener | undefined;
  /** While true, sends are recorded and "handed over" but never delivered (lost in the medium). */
  dropping = false;
  /** While true, sends are recorded and refused (the medium did not take them). */
  refusing = false;
  /** While true, sends are recorded and reach nobody (`false`: the peer was not listening). */
  unheard = false;
  /** While set, the `open` of an exchange waits for it (the medium is slow to answer). */
  heldOpens: Promise<void> | undefined;
  /** How many times `alive` was asked. */
  aliveCalls = 0;

  /**
   * A broadcast from `from` reaches this node's listener now, as a medium does with a message that
   * was already on its way (or a subscription not yet torn down) when this process closed.
   */
  deliverBroadcast(from: string, message: string): void {
    this.listener?.broadcast(from, message);
  }

  /** As the medium would after losing its connection. */
  interrupt(): void {
    this.listener?.interrupted?.();
  }

  constructor(private readonly inner: Relay) {}

  get nodeId(): string {
    return this.inner.nodeId;
  }

  listen(listener: RelayListener): Promise<void> {
    this.listener = listener;
    return this.inner.listen(listener);
  }

  send(to: string, message: string): Promise<boolean> {
    // Held: the medium answers an exchange's `open` once the gate opens (a slow PUBLISH), with
    // what is true by then.
    const held = this.heldOpens;
    if (held && (JSON.parse(message) as { t?: string }).t === 'open')
      return held.then(() => this.send(to, message));
    if (this.closed) this.afterClose.push(message);
    this.sent.push({ to, message: JSON.parse(message) as JsonObject });
    if (this.refusing) return Promise.reject(new StoreUnavailableError('test relay', 'send'));
    if (this.unheard) return Promise.resolve(false);
    return this.dropping ? Promise.resolve(true) : this.inner.send(to, message);
  }

  broadcast(message: string): Promise<void> {
    if (this.closed) this.afterClose.push(message);
    return this.inner.broadcast(message);
  }

  alive(nodeId: string): Promise<boolean> {
    this.aliveCalls++;
    return this.inner.alive(nodeId);
  }

  peers(): Promise<string[]> {
    return this.inner.peers!();
  }

  close(): Promise<void> {
    this.closed = true;
    return this.inner.close();
  }
}

export interface Node {
  readonly name: string;
  /** The node's server (what `server.broadcast` raises here fans out to the others). */
  readonly server: Server;
  readonly handler: HttpHandler;
  readonly relay: RecordingRelay;
  readonly probes: Probes;
  /** This node's live engine sessions by session id. */
  readonly sessions: Map<string, ServerSession>;
  /** Session ids this node started, and how they ended. */
  readonly started: string[];
  readonly ended: [string, string][];
}

export interface Cluster {
  readonly hub: MemoryRelayHub;
  readonly store: InMemorySessionStore;
  readonly nodes: Node[];
  /** Which node served each request sent through `fetch` (node index, HTTP method, JSON body). */
  readonly log: { node: number; method: string; body: JsonObject | undefined }[];
  /** A load balancer: request k goes to `route(k)` (round robin by default). */
  fetch: typeof globalThis.fetch;
  route: (k: number, request: Request) => number;
  close(): Promise<void>;
}

/**
 * Tools (by `name`; probes keyed by `arguments.key`, default the name):
 * - `whoami`: `{ node, sessionId, probe }` (the `x-probe` request header).
 * - `ask`: elicits, returns the answer's `content.answer`.
 * - `block`: elicits an answer that never comes (waits for its abort).
 * - `gated`: a log notification, waits for the test's gate, another one, returns.
 * - `close-stream`: a log, closes its SSE stream (SEP-1699), waits for the gate, a log, returns.
 * - `flood`: ten 2 KiB log messages, then waits for the gate.
 * - `slow`: waits for the gate without sending anything first (its reply stays JSON).
 * - `big`: returns `arguments.text` repeated `arguments.times` times (a large JSON reply).
 */
function createNodeServer(name: string, probes: Probes, sessions: Map<string, ServerSession>): Server {
  const server = new Server({ name, version: '1.0.0' }, { capabilities: { tools: {}, logging: {} } });
  server.setRequestHandler('tools/call', async (params, ctx) => {
    const args = (params.arguments ?? {}) as JsonObject;
    const key = String(args.key ?? params.name);
    const signal = ctx.signal;
    signal.addEventListener('abort', () => probes.for(probes.aborted, key).resolve(signal.reason), {
      once: true,
    });
    probes.for(probes.started, key).resolve();
    try {
      switch (params.name) {
        case 'whoami':
          return text(
            JSON.stringify({
              node: name,
              sessionId: ctx.sessionId,
              probe: ctx.info?.headers?.get('x-probe'),
              auth: ctx.info?.authInfo,
            }),
          );
        case 'ask': {
          const answer = await ctx.request('elicitation/create', {
            message: 'Your answer?',
            requestedSchema: { type: 'object', properties: { answer: { type: 'string' } } },
          });
          return text(`${name} got ${String((answer.content as JsonObject | undefined)?.answer)}`);
        }
        case 'block':
          await ctx.request('elicitation/create', {
            message: 'never answered',
            requestedSchema: { type: 'object', properties: {} },
          });
          return text('unblocked');
        case 'gated':
          await ctx.notify('notifications/message', { level: 'info', data: 'before gate' });
          await probes.for(probes.gates, key).promise;
          await ctx.notify('notifications/message', { level: 'info', data: 'after gate' });
          return text(`gated ${key} done`);
        case 'close-stream':
          await ctx.notify('notifications/message', { level: 'info', data: 'before close' });
          ctx.info?.closeSSEStream?.();
          await probes.for(probes.gates, key).promise;
          await ctx.notify('notifications/message', { level: 'info', data: 'after close' });
          return text('closed and done');
        case 'flood':
          for (let i = 0; i < 10; i++) {
            await ctx.notify('notifications/message', { level: 'info', data: 'x'.repeat(2_048) });
          }
          await probes.for(probes.gates, key).promise;
          return text('flooded');
        case 'big':
          return text(String(args.text).repeat(Number(args.times)));
        case 'slow':
          await probes.for(probes.gates, key).promise;
          return text('slow done');
        default:
          return text('unknown');
      }
    } finally {
      probes.for(probes.finished, key).resolve();
    }
  });
  const connect = server.connect.bind(server);
  server.connect = (transport: Transport, options) => {
    const session = connect(transport, options);
    const id = (transport as { sessionId?: string }).sessionId;
    if (id !== undefined) {
      sessions.set(id, session);
      void session.closed.then(() => sessions.delete(id));
    }
    return session;
  };
  return server;
}

function text(value: string): JsonObject {
  return { content: [{ type: 'text', text: value }] };
}

export function startCluster(
  count = 3,
  options: HttpHandlerOptions = {},
  setup: { hubDown?: boolean; store?: SessionStore } = {},
): Cluster {
  const hub = new MemoryRelayHub();
  // Down before the handlers start: their eager listen() fails.
  hub.down = setup.hubDown ?? false;
  const store = new InMemorySessionStore();
  const shared = setup.store ?? store;
  const nodes: Node[] = [];
  for (let i = 0; i < count; i++) {
    const name = `node-${i + 1}`;
    const relay = new RecordingRelay(hub.node(name));
    const probes = new Probes();
    const sessions = new Map<string, ServerSession>();
    const started: string[] = [];
    const ended: [string, string][] = [];
    const server = createNodeServer(name, probes, sessions);
    const handler = createHttpHandler(server, {
      keepAliveMs: 0,
      relayCheckMs: 20,
      ...options,
      backplane: { relay, sessions: shared },
      onSessionStart: (id) => started.push(id),
      onSessionEnd: (id, reason) => ended.push([id, reason]),
    });
    nodes.push({ name, server, handler, relay, probes, sessions, started, ended });
  }
  let k = 0;
  const cluster: Cluster = {
    hub,
    store,
    nodes,
    log: [],
    route: (n) => n % count,
    fetch: async (input: RequestInfo | URL, init?: RequestInit) => {
      const request = new Request(input, init);
      const index = cluster.route(k++, request);
      const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as JsonObject) : undefined;
      cluster.log.push({ node: index, method: request.method, body });
      return nodes[index]!.handler(request);
    },
    close: async () => {
      await Promise.all(nodes.map((node) => node.handler.close({ deadlineMs: 2_000 })));
    },
  };
  return cluster;
}

export const URL_ = 'http://127.0.0.1/mcp';

/** A raw request to one node. */
export function request(
  node: Node,
  method: string,
  options: {
    sessionId?: string | undefined;
    body?: unknown;
    headers?: Record<string, string>;
    signal?: AbortSignal;
    extra?: HttpRequestExtra;
  } = {},
): Promise<Response> {
  const headers: Record<string, string> = {
    accept: method === 'GET' ? 'text/event-stream' : JSON_AND_SSE,
    ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
    ...options.headers,
  };
  if (options.sessionId !== undefined) headers['mcp-session-id'] = options.sessionId;
  return node.handler(
    new Request(URL_, {
      method,
      headers,
      ...(options.body === undefined
        ? {}
        : { body: typeof options.body === 'string' ? options.body : JSON.stringify(options.body) }),
      ...(options.signal ? { signal: options.signal } : {}),
    }),
    options.extra,
  );
}

export function initializeRequest(id: number | string = 0): JsonObject {
  return {
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: {
      protocolVersion: PROTOCOL,
      capabilities: { elicitation: {} },
      clientInfo: { name: 't', version: '1' },
    },
  };
}

/** Initialize on `node` (and send `initialized` there); returns the session id. */
export async function openSession(node: Node): Promise<string> {
  const response = await request(node, 'POST', { body: initializeRequest() });
  const sessionId = response.headers.get('mcp-session-id');
  const body = (await response.json()) as JsonObject;
  if (!sessionId || !body.result)
    throw new Error(`initialize failed: ${response.status} ${JSON.stringify(body)}`);
  const initialized = await request(node, 'POST', {
    sessionId,
    body: { jsonrpc: '2.0', method: 'notifications/initialized' },
  });
  if (initialized.status !== 202) throw new Error(`initialized: ${initialized.status}`);
  return sessionId;
}

export function callTool(id: number | string, name: string, args: JsonObject = {}): JsonObject {
  return { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } };
}

/** Wait (bounded: 1,000 turns of the event loop) until `predicate` holds. */
export async function until(predicate: () => boolean, what: string): Promise<void> {
  for (let turn = 0; turn < 1_000; turn++) {
    if (predicate()) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error(`${what}: not reached`);
}
