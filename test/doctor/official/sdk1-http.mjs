// The official SDK 1.x over Streamable HTTP, wired as its own example server
// (examples/server/simpleStreamableHttp) does: `createMcpExpressApp()` (which guards Host on
// localhost), one McpServer + StreamableHTTPServerTransport per session in a map, the SDK's
// example in-memory event store for resumability; POST, GET and DELETE on /mcp. The benchmark's
// tools; on 127.0.0.1 and $PORT (0: any free port); prints its URL once listening. keel doctor's
// report on it is in docs/doctor.md.
import { randomUUID } from 'node:crypto';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { InMemoryEventStore } from '@modelcontextprotocol/sdk/examples/shared/inMemoryEventStore.js';
import { createSdk1Server } from '../../../bench/official/sdk1-server.mjs';

const app = createMcpExpressApp();
const transports = new Map();
const error = (res, status, code, message) =>
  res.status(status).json({ jsonrpc: '2.0', error: { code, message }, id: null });

app.post('/mcp', async (req, res) => {
  const sessionId = req.headers['mcp-session-id'];
  let transport = sessionId ? transports.get(sessionId) : undefined;
  if (!transport) {
    if (sessionId) return error(res, 404, -32001, 'Session not found');
    if (!isInitializeRequest(req.body)) return error(res, 400, -32000, 'Bad Request: no session');
    const created = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      eventStore: new InMemoryEventStore(),
      onsessioninitialized: (id) => transports.set(id, created),
    });
    created.onclose = () => created.sessionId && transports.delete(created.sessionId);
    await createSdk1Server().connect(created);
    transport = created;
  }
  await transport.handleRequest(req, res, req.body);
});

// GET (the standalone stream, and resumption) and DELETE: the session's transport answers.
const bySession = async (req, res) => {
  const transport = transports.get(req.headers['mcp-session-id']);
  if (!transport) return error(res, 400, -32000, 'Invalid or missing session ID');
  await transport.handleRequest(req, res);
};
app.get('/mcp', bySession);
app.delete('/mcp', bySession);

const server = app.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  process.stdout.write(`http://127.0.0.1:${server.address().port}/mcp\n`);
});
