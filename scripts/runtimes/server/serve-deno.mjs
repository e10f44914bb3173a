/* global Deno */
// Serving a Keel web handler with `Deno.serve` on loopback: shared by the runtime smoke server
// (deno.mjs) and the benchmark's Deno setup (bench/servers/keel-http-deno.mjs). The handler is
// wrapped: Deno passes connection info as the second argument, where Keel's handler expects
// `{ authInfo }`.

/**
 * Serves `handler` on 127.0.0.1:`port` (0: one the OS picks), calls `onListen(port)` once bound,
 * and on SIGTERM closes the handler, shuts the server down and exits.
 *
 * @example
 * serveOnDeno(createHttpHandler(server), { port: 0, onListen: (port) => console.log(port) });
 */
export function serveOnDeno(handler, { port = 0, onListen = () => {} } = {}) {
  const served = Deno.serve(
    { hostname: '127.0.0.1', port, onListen: (address) => onListen(address.port) },
    (request) => handler(request),
  );
  Deno.addSignalListener('SIGTERM', async () => {
    await handler.close({ deadlineMs: 2_000 });
    await served.shutdown();
    Deno.exit(0);
  });
  return served;
}
