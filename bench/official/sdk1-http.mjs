// Official SDK 1.x over Streamable HTTP with sessions: one McpServer + transport per session,
// kept in a map by session id — the pattern of the SDK's own stateful example, on plain node:http.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { createSdk1Server } from './sdk1-server.mjs';
import { badRequest, listen, readJson } from './read-json.mjs';

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
