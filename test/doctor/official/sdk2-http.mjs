// The official SDK v2 over Streamable HTTP, as `@modelcontextprotocol/node`'s README wires plain
// node:http: its Host and Origin guards, then a stateless McpServer + transport per request, the
// transport reading the body itself. The benchmark's tools; on 127.0.0.1 and $PORT (0: any free
// port); prints its URL once listening. keel doctor's report on it is in docs/doctor.md.
import { createServer } from 'node:http';
import {
  localhostHostValidation,
  localhostOriginValidation,
  NodeStreamableHTTPServerTransport,
} from '@modelcontextprotocol/node';
import { createSdk2Server } from '../../../bench/official/sdk2-server.mjs';

const validateHost = localhostHostValidation();
const validateOrigin = localhostOriginValidation();

const server = createServer(async (req, res) => {
  if (!validateHost(req, res) || !validateOrigin(req, res)) return;
  const mcp = createSdk2Server();
  const transport = new NodeStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  await mcp.connect(transport);
  await transport.handleRequest(req, res);
});
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  process.stdout.write(`http://127.0.0.1:${server.address().port}/mcp\n`);
});
