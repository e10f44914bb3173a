/* global Bun */
// Serving a Keel web handler with `Bun.serve` on loopback: shared by the runtime smoke server
// (bun.mjs) and the benchmark's Bun setup (bench/servers/keel-http-bun.mjs). The handler is
// wrapped because Bun passes its server object as the second argument, where Keel's handler
// expects `{ authInfo }`.

/**
 * Serves `handler` on 127.0.0.1:`port` (0: one the OS picks), calls `onListen(port)` once bound,
 * and on SIGTERM closes the handler, stops the server and exits.
 *
 * @example
 * serveOnBun(createHttpHandler(server), { port: 0, onListen: (port) => console.log(port) });
 */
export function serveOnBun(handler, { port = 0, onListen = () => {} } = {}) {
  const served = Bun.serve({
    hostname: '127.0.0.1',
    port,
    idleTimeout: 0,
    fetch: (request) => handler(request),
  });
  onListen(served.port);
  process.once('SIGTERM', async () => {
    await handler.close({ deadlineMs: 2_000 });
    await served.stop(true);
    process.exit(0);
  });
  return served;
}
