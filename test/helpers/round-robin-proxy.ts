/**
 * A round-robin HTTP proxy for scale-out tests and the scale-out bench: a load balancer with no
 * sticky sessions. Each request goes to the next of N upstream ports in turn; bodies stream both
 * ways as they come (an SSE response reaches the client event by event), a client that leaves
 * aborts its upstream request, and every request is logged with the upstream that served it.
 *
 * Usage:
 *   const proxy = await startRoundRobinProxy([3001, 3002, 3003]);
 *   ... new McpClient over proxy.url('/mcp') ...
 *   proxy.log;                 // [{ upstream: 0, method: 'POST', rpcMethod: 'initialize', ... }, ...]
 *   proxy.next = 2;            // the next request goes to upstream 2 (then 0, 1, ...)
 *   proxy.remove(1);           // upstream 1 is out of the rotation (a failed health check)
 *   await proxy.close();       // bounded: cuts whatever is still open
 */
import { Agent, createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** One proxied request. Fields after `sessionId` fill in as the exchange goes on. */
export interface ProxiedRequest {
  /** 0, 1, 2, ... in arrival order. */
  readonly seq: number;
  /** Index into the upstream list. */
  readonly upstream: number;
  readonly port: number;
  readonly method: string;
  readonly path: string;
  /** The request's `Mcp-Session-Id`, if any. */
  readonly sessionId: string | undefined;
  /** The request's `Last-Event-ID` (a resumed stream), if any. */
  readonly lastEventId: string | undefined;
  /** The JSON-RPC method(s) of a JSON body (known once the body ended; responses have none). */
  rpcMethods: string[];
  /** Upstream status, once its head came (502 when the upstream failed before it). */
  status?: number | undefined;
  /** With `failover`: how many upstreams refused the connection before one took it. */
  failedOver?: number;
  /** How it ended: `done` (response complete), `client-left`, or `upstream-failed`. */
  outcome?: 'done' | 'client-left' | 'upstream-failed';
}

export interface RoundRobinProxy {
  readonly port: number;
  readonly upstreams: readonly number[];
  /** `http://127.0.0.1:<port><path>` */
  url(path?: string): string;
  /** Every request so far, in arrival order. */
  readonly log: readonly ProxiedRequest[];
  /** Index of the upstream the next request goes to (settable, to line a scenario up). */
  next: number;
  /**
   * The first logged request matching `match` (already logged or still to come); rejects after
   * `ms` (default 5 s). Matched when it is logged: the body's JSON-RPC methods may come later.
   */
  waitFor(match: (entry: ProxiedRequest) => boolean, ms?: number): Promise<ProxiedRequest>;
  /**
   * Close the client connections that carry no request right now (kept alive, or opened spare by
   * a client such as undici and never used): what a test calls before the process guard looks.
   */
  closeIdle(): void;
  /** Take upstream `index` out of the rotation (as a balancer does after a failed health check). */
  remove(index: number): void;
  /** Stop listening and cut every open exchange (client and upstream sides); bounded. */
  close(): Promise<void>;
}

/** Whether `all[i]` is a `host` header name or its value (the proxy sets its own). */
function isHost(all: string[], i: number): boolean {
  const name = i % 2 === 0 ? all[i]! : all[i - 1]!;
  return name.toLowerCase() === 'host';
}

/** JSON bodies bigger than this are forwarded but not parsed for the log. */
const SNIFF_LIMIT = 64 * 1024;

/** Hop-by-hop headers (RFC 9110 §7.6.1): each leg of the proxy has its own. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'te', 'trailer']);

function endToEnd(raw: string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (!HOP_BY_HOP.has(raw[i]!.toLowerCase())) kept.push(raw[i]!, raw[i + 1]!);
  }
  return kept;
}

function rpcMethodsOf(body: string): string[] {
  try {
    const parsed: unknown = JSON.parse(body);
    const messages = Array.isArray(parsed) ? parsed : [parsed];
    return messages.flatMap((message: unknown) => {
      const method = (message as { method?: unknown } | null)?.method;
      return typeof method === 'string' ? [method] : [];
    });
  } catch {
    return [];
  }
}

export interface RoundRobinProxyOptions {
  /**
   * Pool the connections to the upstreams (the bench wants it). Default false: each upstream
   * connection ends with its exchange, so a test leaves none behind. Client connections are kept
   * alive either way (`closeIdle()` ends the unused ones): a `Connection: close` answer would make
   * undici read a cut stream as a complete one.
   */
  keepAlive?: boolean;
  /**
   * An upstream that refuses the connection (its process is down or restarting) is skipped: the
   * request, body buffered, goes to the next upstream in the rotation, as a balancer with health
   * checks sends it (issue 28's deploy tests). Only a refused connection: a request that reached
   * an upstream is never sent twice. Default false.
   */
  failover?: boolean;
}

/** Listen on 127.0.0.1 (a free port) in front of `upstreams` (ports on 127.0.0.1). */
export async function startRoundRobinProxy(
  upstreams: readonly number[],
  options: RoundRobinProxyOptions = {},
): Promise<RoundRobinProxy> {
  if (upstreams.length === 0) throw new Error('startRoundRobinProxy needs at least one upstream port');
  const keepAlive = options.keepAlive ?? false;
  const failover = options.failover ?? false;
  const log: ProxiedRequest[] = [];
  // Destroyed on close.
  const agent = new Agent({ keepAlive });
  const open = new Set<() => void>();
  const sockets = new Set<Socket>();
  /** Client connections with a request in progress (the others are idle or never used). */
  const busy = new Map<Socket, number>();
  const state = { next: 0 };
  const removed = new Set<number>();
  const waiters = new Set<(entry: ProxiedRequest) => void>();

  const forward = (req: IncomingMessage, res: ServerResponse): void => {
    const socket = req.socket;
    busy.set(socket, (busy.get(socket) ?? 0) + 1);
    res.once('close', () => {
      const left = (busy.get(socket) ?? 1) - 1;
      if (left > 0) busy.set(socket, left);
      else busy.delete(socket);
    });
    let upstream = state.next % upstreams.length;
    while (removed.has(upstream)) upstream = (upstream + 1) % upstreams.length;
    state.next = (upstream + 1) % upstreams.length;
    const port = upstreams[upstream]!;
    const session = req.headers['mcp-session-id'];
    const lastEventId = req.headers['last-event-id'];
    const entry: ProxiedRequest = {
      seq: log.length,
      upstream,
      port,
      method: req.method ?? 'GET',
      path: req.url ?? '/',
      sessionId: Array.isArray(session) ? session[0] : session,
      lastEventId: Array.isArray(lastEventId) ? lastEventId[0] : lastEventId,
      rpcMethods: [],
    };
    log.push(entry);
    for (const waiter of [...waiters]) waiter(entry);

    // With failover the body is kept, so a refused connection can be tried on the next upstream.
    const body: Buffer[] = [];
    let ended = false;
    let outgoing!: ReturnType<typeof request>;
    const send = (target: number, tries: number): void => {
      const targetPort = upstreams[target]!;
      outgoing = request({
        host: '127.0.0.1',
        port: targetPort,
        method: req.method,
        path: req.url,
        // `keep-alive` even without pooling: the upstream then frames its body (chunked), so the proxy
        // can tell a cut from an end; a non-keep-alive agent still closes the socket afterwards.
        headers: [
          ...endToEnd(req.rawHeaders).filter((_, i, all) => !isHost(all, i)),
          'host',
          `127.0.0.1:${targetPort}`,
          'connection',
          'keep-alive',
        ],
        agent,
      });
      const current = outgoing;
      current.on('response', (upstreamRes) => {
        entry.status = upstreamRes.statusCode;
        const headers = endToEnd(upstreamRes.rawHeaders);
        // A chunked body stays chunked: without it, a body that ends with the connection could not
        // tell a cut (the upstream died) from a clean end.
        if (upstreamRes.headers['transfer-encoding'] !== undefined)
          headers.push('transfer-encoding', 'chunked');
        res.writeHead(upstreamRes.statusCode ?? 502, headers);
        // Send the head now: an SSE stream's client must see it before the first event.
        res.flushHeaders();
        upstreamRes.on('data', (chunk: Buffer) => res.write(chunk));
        upstreamRes.on('end', () => {
          settle('done');
          res.end();
        });
        // The upstream died mid-body: cut the client's response too (as a real balancer does).
        upstreamRes.on('error', () => {});
        upstreamRes.on('close', () => {
          if (upstreamRes.complete) return;
          settle('upstream-failed');
          res.destroy();
        });
      });
      current.on('error', (error: NodeJS.ErrnoException) => {
        if (entry.outcome === 'client-left') return;
        if (failover && error.code === 'ECONNREFUSED' && !res.headersSent && tries + 1 < upstreams.length) {
          let next = (target + 1) % upstreams.length;
          while (removed.has(next)) next = (next + 1) % upstreams.length;
          entry.failedOver = (entry.failedOver ?? 0) + 1;
          send(next, tries + 1);
          for (const chunk of body) outgoing.write(chunk);
          if (ended) outgoing.end();
          return;
        }
        settle('upstream-failed');
        if (res.headersSent) {
          res.destroy();
        } else {
          entry.status = 502;
          res.writeHead(502, { 'content-type': 'text/plain' });
          res.end('upstream failed');
        }
      });
    };
    send(upstream, 0);
    const cut = (): void => {
      outgoing.destroy();
      res.destroy();
    };
    open.add(cut);
    const settle = (outcome: NonNullable<ProxiedRequest['outcome']>): void => {
      entry.outcome ??= outcome;
      open.delete(cut);
    };
    // The client left before its response completed: abort upstream (the server sees it go).
    res.on('close', () => {
      if (!res.writableFinished) {
        settle('client-left');
        outgoing.destroy();
      }
    });

    req.on('error', () => outgoing.destroy());
    let sniffed = '';
    req.on('data', (chunk: Buffer) => {
      if (sniffed.length <= SNIFF_LIMIT) sniffed += chunk.toString('utf8');
      if (failover) body.push(chunk);
      outgoing.write(chunk);
    });
    req.on('end', () => {
      if (sniffed.length > 0 && sniffed.length <= SNIFF_LIMIT) entry.rpcMethods = rpcMethodsOf(sniffed);
      ended = true;
      outgoing.end();
    });
  };

  const server = createServer(forward);
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.setNoDelay(true);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as { port: number };

  return {
    port,
    upstreams: [...upstreams],
    url: (path = '/') => `http://127.0.0.1:${port}${path}`,
    log,
    get next() {
      return state.next;
    },
    set next(index: number) {
      state.next = ((index % upstreams.length) + upstreams.length) % upstreams.length;
    },
    waitFor(match, ms = 5_000) {
      const seen = log.find(match);
      if (seen) return Promise.resolve(seen);
      return new Promise<ProxiedRequest>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(new Error(`no proxied request matched within ${ms} ms`));
        }, ms);
        const waiter = (entry: ProxiedRequest): void => {
          if (!match(entry)) return;
          clearTimeout(timer);
          waiters.delete(waiter);
          resolve(entry);
        };
        waiters.add(waiter);
      });
    },
    closeIdle() {
      for (const socket of sockets) if (!busy.has(socket)) socket.destroy();
    },
    remove(index: number) {
      if (removed.size + 1 >= upstreams.length && !removed.has(index)) {
        throw new Error('cannot remove the last upstream in the rotation');
      }
      removed.add(index);
    },
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const cut of [...open]) cut();
      for (const socket of sockets) socket.destroy();
      agent.destroy();
      await closed;
    },
  };
}
