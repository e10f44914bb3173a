/* global Bun */
// Bun smoke server: `Bun.serve` with the web handler (see serve-bun.mjs).
import { createSmokeHandler } from './app.mjs';
import { serveOnBun } from './serve-bun.mjs';

serveOnBun(createSmokeHandler(`bun-${Bun.version}`), {
  onListen: (port) => console.log(`KEEL_SMOKE_URL http://127.0.0.1:${port}/mcp`),
});
