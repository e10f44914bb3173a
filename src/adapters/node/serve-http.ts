/**
 * One-call Node hosting of a Streamable HTTP endpoint.
 */
import { createServer, type Server as NodeHttpServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { metadataResponder, type MetadataResponder } from '../../server/auth/metadata.js';
import type { ResourceServerOptions } from '../../server/auth/options.js';
import type { Connectable } from '../../server/server.js';
import { createHttpHandler, type HttpHandler } from '../../hosts/http/http-handler.js';
import type { HttpHandlerOptions } from '../../hosts/http/options.js';
import { DEFAULT_DISCARD_LIMITS, endAfterBody, type DiscardLimits } from './end-after-body.js';
import { toNodeListener } from './node-listener.js';

/**
 * @example
 * await serveHttp(server, { port: 0, host: '127.0.0.1', path: '/mcp', sessions: { idleMs: 60_000 } });
 */
export interface ServeHttpOptions extends Omit<HttpHandlerOptions, 'auth'> {
  /**
   * Protect the endpoint (see `HttpHandlerOptions.auth`) and serve its RFC 9728 metadata. A
   * function is called once the server listens, with the endpoint URL (e.g. with `port: 0`,
   * when the resource URL is the URL served).
   */
  auth?: ResourceServerOptions | ((url: string) => ResourceServerOptions) | undefined;
  /** Port to listen on; 0 picks a free one. Default 3000. */
  port?: number;
  /** Interface to bind. Default `127.0.0.1` (loopback only). */
  host?: string;
  /**
   * The MCP endpoint path; other paths get 404 (but the protected resource metadata paths when
   * `auth` is set). Default `/mcp`.
   */
  path?: string;
  /**
   * Longest time to receive a whole request (headers and body), in ms; a slower client gets 408
   * and its connection is closed. It covers receiving only: a long SSE response is not cut.
   * 0 disables. Default 30,000 (Node's own default is 300,000).
   */
  requestTimeout?: number;
  /** Longest time to receive the request headers, in ms (at most `requestTimeout`). Default 10,000. */
  headersTimeout?: number;
  /**
   * How long an idle keep-alive connection stays open after a response, in ms. (Not `keepAliveMs`,
   * the interval of SSE keep-alive comments.) Default 5,000.
   */
  keepAliveTimeout?: number;
  /**
   * Most simultaneous TCP connections; past it, new ones are closed at once. Every open SSE stream
   * holds one. Default 4,096: raise it (and the process's file limit) for big deployments.
   */
  maxConnections?: number;
  /** Bounds on reading a body the server answered without reading (e.g. 413). Default 5 s, 8 MiB. */
  discardBody?: DiscardLimits;
}

/**
 * Defaults of the `node:http` limits {@link serveHttp} sets.
 *
 * @example
 * await serveHttp(server, { requestTimeout: 2 * SERVE_HTTP_DEFAULTS.requestTimeout });
 */
export const SERVE_HTTP_DEFAULTS = Object.freeze({
  requestTimeout: 30_000,
  headersTimeout: 10_000,
  keepAliveTimeout: 5_000,
  maxConnections: 4_096,
});

/**
 * A running server from {@link serveHttp}.
 *
 * @example
 * const { url, close } = await serveHttp(server, { port: 0 });
 * console.error(`listening on ${url}`);
 * await close();
 */
export interface HttpServing {
  /** The endpoint URL, e.g. `http://127.0.0.1:3000/mcp`. */
  readonly url: string;
  readonly handler: HttpHandler;
  readonly server: NodeHttpServer;
  /**
   * Graceful stop: end every session (handlers aborted, streams ended) within `deadlineMs`
   * (default 5,000), then stop listening and close idle keep-alive sockets. Idempotent. With a
   * `backplane` and other processes running, it drains instead (issue 28): it stops listening at
   * once, hands sessions over as their running requests finish (up to `deadlineMs`), passes new
   * sessions to the other processes, then ends what is left (docs/scale-out.md, "Deploys").
   */
  close(options?: { deadlineMs?: number }): Promise<void>;
}

/**
 * Serve `target` over Streamable HTTP on a Node `http` server.
 *
 * @example
 * const serving = await serveHttp(server, { port: 3000 });
 * process.on('SIGINT', () => void serving.close());
 */
export async function serveHttp(target: Connectable, options: ServeHttpOptions = {}): Promise<HttpServing> {
  const {
    port = 3000,
    host = '127.0.0.1',
    path = '/mcp',
    requestTimeout = SERVE_HTTP_DEFAULTS.requestTimeout,
    headersTimeout = SERVE_HTTP_DEFAULTS.headersTimeout,
    keepAliveTimeout = SERVE_HTTP_DEFAULTS.keepAliveTimeout,
    maxConnections = SERVE_HTTP_DEFAULTS.maxConnections,
    discardBody = DEFAULT_DISCARD_LIMITS,
    auth,
    ...handlerOptions
  } = options;
  let handler: HttpHandler | undefined;
  let listener: ReturnType<typeof toNodeListener> | undefined;
  // With auth: RFC 9728 metadata at its path-based and root well-known URLs.
  let metadata: MetadataResponder | undefined;
  const build = (resolved: ResourceServerOptions | undefined): void => {
    handler = createHttpHandler(target, { ...handlerOptions, auth: resolved });
    metadata = resolved && metadataResponder(resolved);
    listener = toNodeListener(handler, { discardBody });
  };
  // Bad options throw before anything listens; only `auth` as a function waits for the URL.
  if (typeof auth !== 'function') build(auth);
  // Sockets that never sent a request: Node does not count them as idle, so close() would wait
  // for its request timeout (clients such as undici open spare connections).
  const silent = new Set<Socket>();
  let draining = false;
  // Node (18+) checks both timeouts only until the request is fully received, so a long SSE
  // response lives on; the check runs every `connectionsCheckingInterval`, kept well below them.
  const headersLimit = requestTimeout > 0 ? Math.min(headersTimeout, requestTimeout) : headersTimeout;
  const smallest = Math.min(requestTimeout || Infinity, headersLimit || Infinity);
  const server = createServer(
    {
      requestTimeout,
      headersTimeout: headersLimit,
      connectionsCheckingInterval: Math.min(30_000, Math.max(10, Math.floor(smallest / 4))),
    },
    (req, res) => {
      silent.delete(req.socket);
      const target = pathOf(req.url ?? '/');
      const document = target !== path ? metadata?.(req.method ?? 'GET', target) : undefined;
      if (document) {
        if (!req.complete) res.setHeader('connection', 'close');
        res.writeHead(document.status, document.headers);
        if (document.body !== undefined) res.write(document.body);
        endAfterBody(req, res, discardBody);
        return;
      }
      if (target !== path || !listener) {
        // (No listener: `auth(url)` is being called; a request cannot arrive before it returns.)
        if (!req.complete) res.setHeader('connection', 'close');
        res.writeHead(404, { 'content-type': 'text/plain', 'content-length': '9' }).write('Not found');
        endAfterBody(req, res, discardBody);
        return;
      }
      // Draining: each connection carries no request after this one, so a balancer opens a new
      // one, to another process (this one stopped listening).
      if (draining) res.setHeader('connection', 'close');
      listener(req, res);
    },
  );
  server.keepAliveTimeout = keepAliveTimeout;
  server.maxConnections = maxConnections;
  server.on('connection', (socket: Socket) => {
    silent.add(socket);
    socket.once('close', () => silent.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shownHost =
    address.family === 'IPv6' || address.address.includes(':') ? `[${address.address}]` : address.address;
  const url = `http://${shownHost}:${address.port}${path}`;
  if (typeof auth === 'function') {
    try {
      build(auth(url));
    } catch (error) {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      throw error;
    }
  }
  const built = handler!;

  let closing: Promise<void> | undefined;
  const close = (closeOptions?: { deadlineMs?: number }): Promise<void> =>
    (closing ??= (async () => {
      const deadlineMs = closeOptions?.deadlineMs ?? 5_000;
      // With a backplane the handler drains (issue 28): stop listening first, so new connections
      // go to the other processes (a balancer skips a target that refuses); requests on open
      // connections are still served, passed on or handed over.
      let stopped: Promise<void> | undefined;
      if (handlerOptions.backplane !== undefined) {
        draining = true;
        stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      }
      await built.close({ deadlineMs });
      stopped ??= new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      for (const socket of silent) socket.destroy();
      // Streams were ended above; a connection still busy past the deadline is cut.
      const timer = setTimeout(() => server.closeAllConnections(), deadlineMs);
      await stopped;
      clearTimeout(timer);
    })());
  return { url, handler: built, server, close };
}

/** The path of a request target, without its query. */
function pathOf(target: string): string {
  const query = target.indexOf('?');
  return query < 0 ? target : target.slice(0, query);
}
