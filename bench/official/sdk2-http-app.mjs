// Official SDK v2 over Streamable HTTP (`@modelcontextprotocol/node`): the README pattern for plain
// node:http — its Host/Origin guards, then one McpServer + NodeStreamableHTTPServerTransport per
// session (kept in a map by session id) or, stateless, per request. `enableJsonResponse: true`
// makes the transport answer a POST with one JSON body instead of an SSE stream (its default).
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import {
  NodeStreamableHTTPServerTransport,
  localhostHostValidation,
  localhostOriginValidation,
} from '@modelcontextprotocol/node';
import { isInitializeRequest } from '@modelcontextprotocol/server';
import { createSdk2Server } from './sdk2-server.mjs';
import { badRequest, listen, readJson } from './read-json.mjs';

export function serveSdk2Sessions({ enableJsonResponse = false } = {}) {
  const validateHost = localhostHostValidation();
  const validateOrigin = localhostOriginValidation();
  const transports = new Map();
  listen(
    createServer(async (req, res) => {
      try {
        if (!validateHost(req, res) || !validateOrigin(req, res)) return;
        const sessionId = req.headers['mcp-session-id'];
        const body = req.method === 'POST' ? await readJson(req) : undefined;
        let transport = typeof sessionId === 'string' ? transports.get(sessionId) : undefined;
        if (!transport) {
          if (sessionId !== undefined) return badRequest(res, 404, 'Session not found');
          if (req.method !== 'POST' || !isInitializeRequest(body)) return badRequest(res, 400, 'No session');
          const created = new NodeStreamableHTTPServerTransport({
            sessionIdGenerator: () => randomUUID(),
            onsessioninitialized: (id) => transports.set(id, created),
            enableJsonResponse,
          });
          created.onclose = () => created.sessionId && transports.delete(created.sessionId);
          await createSdk2Server().connect(created);
          transport = created;
        }
        await transport.handleRequest(req, res, body);
      } catch (error) {
        if (!res.headersSent) badRequest(res, 500, String(error));
      }
    }),
  );
}

export function serveSdk2Stateless({ enableJsonResponse = false } = {}) {
  const validateHost = localhostHostValidation();
  const validateOrigin = localhostOriginValidation();
  listen(
    createServer(async (req, res) => {
      try {
        if (!validateHost(req, res) || !validateOrigin(req, res)) return;
        const body = req.method === 'POST' ? await readJson(req) : undefined;
        const server = createSdk2Server();
        const transport = new NodeStreamableHTTPServerTransport({
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
