/* global Deno */
// Keel's HTTP bench server on Deno: the BUILT default bench server (dist/, what `npm run bench`
// builds) behind `createHttpHandler`, served natively by `Deno.serve` through the runtime matrix's
// own serving code. Run by bench/lib/runtime-setups.mjs as `deno run <permissions> <this> <mode>
// <port>` (the matrix's permissions: loopback sockets, reading the repository; hence the port as
// an argument, not from the environment).
import { serveOnDeno } from '../../scripts/runtimes/server/serve-deno.mjs';
import { createBenchServer } from '../../dist/bench/servers/keel-tools.js';
import { createHttpHandler } from '../../dist/src/hosts/http/index.js';
import { benchHandlerOptions } from './runtime-args.mjs';

const { options, port } = benchHandlerOptions(Deno.args);
serveOnDeno(createHttpHandler(createBenchServer(), options), { port });
