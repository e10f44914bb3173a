/* global Bun */
// Bun smoke server: `Bun.serve` with the web handler. The handler is wrapped because Bun passes its
// server object as the second argument, where Keel's handler expects `{ authInfo }`.
import { createSmokeHandler } from './app.mjs';

const handler = createSmokeHandler(`bun-${Bun.version}`);
const served = Bun.serve({
  hostname: '127.0.0.1',
  port: 0,
  idleTimeout: 0,
  fetch: (request) => handler(request),
});
console.log(`KEEL_SMOKE_URL http://127.0.0.1:${served.port}/mcp`);
process.once('SIGTERM', async () => {
  await handler.close({ deadlineMs: 2_000 });
  await served.stop(true);
  process.exit(0);
});
