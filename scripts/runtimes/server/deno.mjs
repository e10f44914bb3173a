/* global Deno */
// Deno smoke server: `Deno.serve` with the web handler (see serve-deno.mjs).
import { createSmokeHandler } from './app.mjs';
import { serveOnDeno } from './serve-deno.mjs';

serveOnDeno(createSmokeHandler(`deno-${Deno.version.deno}`), {
  onListen: (port) => console.log(`KEEL_SMOKE_URL http://127.0.0.1:${port}/mcp`),
});
