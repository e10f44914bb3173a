// Official SDK 1.x over Streamable HTTP on plain node:http, in the SDK's documented patterns.
// With sessions: one McpServer + transport per session, kept in a map by session id (the SDK's
// stateful example). Stateless: a fresh McpServer + transport per request
// (`sessionIdGenerator: undefined`). `enableJsonResponse: true` makes the transport answer a POST
// with one JSON body instead of an SSE stream (its default).
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { createSdk1Server } from './sdk1-server.mjs';
import { badRequest, listen, readJson } from './read-json.mjs';

export function serveSdk1Sessions({ enableJsonResponse = false } = {}) {
  const transports = new Map();
  listen(
    createServer(async (req, res) => {
      try {
        const sessionId = req.headers['mcp-session-id'];
        const body = req.method === 'POST' ? await readJson(req) : undefined;
        let transport = typeof sessionId === 'string' ? transports.get(sessionId) : undefined;
        if (!transport) {
          if (sessionId !== undefined) return badRequest(res, 404, 'Session not found');
          if (req.method !== 'POST' || !isInitializeRequest(body)) return badRequest(res, 400, 'No session');
          const created = new StreamableHTTPServerTransport({
            sessionIdGenerator: () => randomUUID(),
            onsessioninitialized: (id) => transports.set(id, created),
            enableJsonResponse,
          });
          created.onclose = () => created.sessionId && transports.delete(created.sessionId);
          await createSdk1Server().connect(created);
          transport = created;
        }
        await transport.handleRequest(req, res, body);
      } catch (error) {
        if (!res.headersSent) badRequest(res, 500, String(error));
      }
    }),
  );
}

export function serveSdk1Stateless({ enableJsonResponse = false } = {}) {
  listen(
    createServer(async (req, res) => {
      try {
        const body = req.method === 'POST' ? await readJson(req) : undefined;
        const server = createSdk1Server();
        const transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: undefined,
          enableJsonResponse,
        });
        res.on('close', () => {
          void transport.close();
          void server.close();
        });
        await server.connect(transport);
        await transport.handleRequest(req, res, body);
      } catch (error) {
        if (!res.headersSent) badRequest(res, 500, String(error));
      }
    }),
  );
}
