// Official SDK v2 over Streamable HTTP with sessions (`@modelcontextprotocol/node`): one McpServer
// + NodeStreamableHTTPServerTransport per session, behind the Host/Origin guards its README
// composes in front of a plain node:http server.
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
