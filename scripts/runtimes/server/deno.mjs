/* global Deno */
// Deno smoke server: `Deno.serve` with the web handler (wrapped: Deno passes connection info as the
// second argument, where Keel's handler expects `{ authInfo }`).
import { createSmokeHandler } from './app.mjs';

const handler = createSmokeHandler(`deno-${Deno.version.deno}`);
const served = Deno.serve(
  {
    hostname: '127.0.0.1',
    port: 0,
    onListen: ({ port }) => console.log(`KEEL_SMOKE_URL http://127.0.0.1:${port}/mcp`),
  },
  (request) => handler(request),
);
Deno.addSignalListener('SIGTERM', async () => {
  await handler.close({ deadlineMs: 2_000 });
  await served.shutdown();
  Deno.exit(0);
});
