/**
 * A small stdio MCP server on the low-level `Server`: two tools, `echo` and `slow`.
 *
 *   npm run build && node dist/examples/stdio-example-server.js [--drain-ms=2000]
 *
 * stdout carries protocol messages only; everything else goes to stderr. When the client closes
 * stdin the process exits with status 0: in-flight `slow` calls are aborted at once (and answered
 * with one `-32000` error each), or, with `--drain-ms`, given that long to finish first.
 */
import { ErrorCode, McpError, type JsonObject } from '../src/core/index.js';
import { Server } from '../src/server/index.js';
import { serveStdio } from '../src/hosts/stdio/index.js';
import { sleep as wait } from './fixture/sleep.js';

const tools = [
  {
    name: 'echo',
    description: 'Returns its text argument.',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  },
  {
    name: 'slow',
    description: 'Waits `ms` milliseconds (default 1000), or until the call is cancelled.',
    inputSchema: { type: 'object', properties: { ms: { type: 'number', minimum: 0 } } },
  },
];

function log(message: string): void {
  process.stderr.write(`[stdio-example] ${message}\n`);
}

function text(value: string): JsonObject {
  return { content: [{ type: 'text', text: value }] };
}

const server = new Server({ name: 'stdio-example', version: '1.0.0' }, { capabilities: { tools: {} } });

server.setRequestHandler('tools/list', () => ({ tools }));

server.setRequestHandler('tools/call', async (params, ctx) => {
  const args = (params.arguments ?? {}) as JsonObject;
  switch (params.name) {
    case 'echo':
      if (typeof args.text !== 'string')
        throw new McpError(ErrorCode.InvalidParams, 'echo: text must be a string');
      return text(args.text);
    case 'slow': {
      const ms = typeof args.ms === 'number' ? args.ms : 1_000;
      try {
        await wait(ms, ctx.signal);
      } finally {
        // Runs at once on EOF or cancel, not when the client's SIGTERM arrives.
        if (ctx.signal.aborted) log(`slow call ${String(ctx.id)} aborted: ${String(ctx.signal.reason)}`);
      }
      return text(`waited ${ms} ms`);
    }
    default:
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${String(params.name)}`);
  }
});

const drainArg = process.argv.find((arg) => arg.startsWith('--drain-ms='));
const drainMs = drainArg ? Number(drainArg.slice('--drain-ms='.length)) : 0;

log(`serving on stdio (drainMs=${drainMs})`);
await serveStdio(server, {
  drainMs,
  logger: { debug() {}, error: (message, detail) => log(`${message} ${String(detail)}`) },
});
log('stdin closed; bye');
