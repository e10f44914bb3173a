// Official SDK 1.x over Streamable HTTP without sessions: a fresh McpServer + transport per
// request (`sessionIdGenerator: undefined`), the SDK's documented stateless pattern.
import { createServer } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createSdk1Server } from './sdk1-server.mjs';
import { badRequest, listen, readJson } from './read-json.mjs';

listen(
  createServer(async (req, res) => {
    try {
      const body = req.method === 'POST' ? await readJson(req) : undefined;
      const server = createSdk1Server();
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
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
