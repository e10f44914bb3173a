/**
 * The conformance fixture over Streamable HTTP on the port in $PORT (default 3000), for the
 * official suite: `PORT=3001 npm run fixture:http`, then
 * `npx conformance server --url http://127.0.0.1:3001/mcp`.
 */
import { serveHttp } from '../src/adapters/node/index.js';
import { createFixtureServer } from './fixture-server.js';

const port = Number(process.env.PORT ?? 3000);
const serving = await serveHttp(createFixtureServer(), {
  port,
  host: '127.0.0.1',
  path: '/mcp',
  // The suite's server-sse-streams-functional check wants every POST answered as a stream; the
  // default ('auto') answers handlers that emit nothing first with plain JSON, which it only notes.
  postResponse: 'sse',
  logger: {
    debug() {},
    error: (message, detail) => console.error(`[fixture-http] ${message}`, detail ?? ''),
  },
});
console.log(serving.url);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void serving.close({ deadlineMs: 2_000 }));
}
