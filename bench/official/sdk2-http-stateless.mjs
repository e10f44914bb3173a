// Official SDK v2 over Streamable HTTP without sessions: the `@modelcontextprotocol/node` README
// pattern for plain node:http (guards, then a fresh McpServer + transport per request).
import { createServer } from 'node:http';
import {
  NodeStreamableHTTPServerTransport,
  localhostHostValidation,
  localhostOriginValidation,
} from '@modelcontextprotocol/node';
import { createSdk2Server } from './sdk2-server.mjs';
import { badRequest, listen, readJson } from './read-json.mjs';

const validateHost = localhostHostValidation();
const validateOrigin = localhostOriginValidation();

listen(
  createServer(async (req, res) => {
    try {
      if (!validateHost(req, res) || !validateOrigin(req, res)) return;
      const body = req.method === 'POST' ? await readJson(req) : undefined;
      const server = createSdk2Server();
      const transport = new NodeStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
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
