// The command line of the Bun and Deno bench servers: `<mode> <port>`, mode `sessions` (Keel's
// default handler with the bench's session cap, as `bench:http`) or `stateless` (`sessions: false`, as
// `bench:http-stateless`).

/**
 * Handler options and port from the arguments after the script; throws on anything else, so a
 * wrong launch fails at start instead of measuring the wrong server.
 *
 * @example
 * benchHandlerOptions(['stateless', '4100']); // { options: { sessions: false }, port: 4100 }
 */
export function benchHandlerOptions(args) {
  const [mode, portText] = args;
  const port = Number(portText);
  if (args.length !== 2 || !Number.isInteger(port) || port <= 0 || port > 65_535)
    throw new Error(`usage: <sessions|stateless> <port>, got ${JSON.stringify(args)}`);
  // The same session limits as the Node bench servers (keel-http-serve.ts, BENCH_SESSION_LIMITS).
  if (mode === 'sessions') return { options: { sessions: { max: 100_000 } }, port };
  if (mode === 'stateless') return { options: { sessions: false }, port };
  throw new Error(`unknown mode ${JSON.stringify(mode)}: sessions or stateless`);
}
