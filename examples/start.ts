/**
 * `npm start`: the conformance fixture server (every tool, resource and prompt the official
 * suite expects) on http://127.0.0.1:3000/mcp, with how to talk to it.
 */
import { serveHttp } from '../src/adapters/node/index.js';
import { createFixtureServer } from './fixture-server.js';

const port = Number(process.env.PORT ?? 3000);
const serving = await serveHttp(createFixtureServer(), {
  port,
  host: '127.0.0.1',
  path: '/mcp',
  logger: {
    debug() {},
    error: (message, detail) => console.error(`[keel] ${message}`, detail ?? ''),
  },
});

const url = serving.url;
console.log(`Keel MCP server (conformance fixture) listening on ${url}

Connect an MCP client (Streamable HTTP) to:
  ${url}

Try it with curl:
  curl -si ${url} \\
    -H 'content-type: application/json' \\
    -H 'accept: application/json, text/event-stream' \\
    -d '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}'

  # then, with the Mcp-Session-Id header from that response:
  curl -s ${url} -H 'mcp-session-id: <id>' \\
    -H 'content-type: application/json' -H 'accept: application/json, text/event-stream' \\
    -d '{"jsonrpc":"2.0","id":2,"method":"tools/list"}'

Or run the official conformance suite against it:
  npx @modelcontextprotocol/conformance server --url ${url}

Press Ctrl+C to stop.`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    console.error('\nShutting down…');
    void serving.close({ deadlineMs: 2_000 });
  });
}
