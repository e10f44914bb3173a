/**
 * Fastify 5 binding of Keel's HTTP handler, as an encapsulated plugin. Fastify is only a type
 * import here (erased at run time): nothing is loaded unless the user registers the plugin.
 */
import type { IncomingMessage } from 'node:http';
import type { FastifyPluginCallback, FastifyRequest } from 'fastify';
import type { DiscardLimits } from '../node/end-after-body.js';
import { toNodeListener, type FetchHandler } from '../node/node-listener.js';

/**
 * Options of {@link mcpFastify}.
 *
 * @example
 * await app.register(mcpFastify, { handler, path: '/mcp', authInfo: (request) => request.user });
 */
export interface FastifyMcpOptions {
  /** Keel's handler (`createHttpHandler(server)`), or any fetch-style handler. */
  handler: FetchHandler;
  /** The route, relative to the plugin's prefix. Default `/mcp`. */
  path?: string;
  /** What to pass as `authInfo` (default: `request.raw.auth`, as set by common auth middleware). */
  authInfo?: (request: FastifyRequest) => unknown;
  /** Bounds on reading a body the server answered without reading (e.g. 413). Default 5 s, 8 MiB. */
  discardBody?: DiscardLimits;
}

/**
 * A Fastify plugin serving Keel's Streamable HTTP endpoint on `path` (every method: GET opens the
 * SSE stream, DELETE ends a session). The route reads the raw request stream itself (its context
 * replaces Fastify's body parsers with a pass-through, so Keel applies its own size limit and
 * answers bad bodies with JSON-RPC errors) and takes the response over (`reply.hijack()`), so SSE
 * is written unbuffered and a client that disconnects aborts its handlers. The plugin is
 * encapsulated: the rest of the app keeps Fastify's parsers.
 *
 * @example
 * import Fastify from 'fastify';
 * import { createHttpHandler } from 'keel-mcp/http';
 * import { mcpFastify } from 'keel-mcp/fastify';
 * const app = Fastify();
 * const handler = createHttpHandler(server);
 * await app.register(mcpFastify, { handler });
 * app.addHook('preClose', () => handler.close());
 * await app.listen({ port: 3000, host: '127.0.0.1' });
 */
export const mcpFastify: FastifyPluginCallback<FastifyMcpOptions> = (fastify, options, done) => {
  const requests = new WeakMap<IncomingMessage, FastifyRequest>();
  const authInfo = options.authInfo;
  const listener = toNodeListener(options.handler, {
    ...(authInfo && {
      authInfo: (raw) => {
        const request = requests.get(raw);
        return request ? authInfo(request) : undefined;
      },
    }),
    ...(options.discardBody && { discardBody: options.discardBody }),
  });
  // Leave the body stream unread, whatever its content type: Keel reads it with its own limit.
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('*', (_request, _payload, parsed) => parsed(null));
  fastify.all(options.path ?? '/mcp', (request, reply) => {
    if (authInfo) requests.set(request.raw, request);
    reply.hijack();
    listener(request.raw, reply.raw);
  });
  done();
};
