/* global Bun */
// Keel's HTTP bench server on Bun: the BUILT default bench server (dist/, what `npm run bench`
// builds) behind `createHttpHandler`, served natively by `Bun.serve` through the runtime matrix's
// own serving code. Run by bench/lib/runtime-setups.mjs as `bun run <this> <mode> <port>`, mode
// `sessions` (the default handler) or `stateless` (`sessions: false`).
import { serveOnBun } from '../../scripts/runtimes/server/serve-bun.mjs';
import { createBenchServer } from '../../dist/bench/servers/keel-tools.js';
import { createHttpHandler } from '../../dist/src/hosts/http/index.js';
import { benchHandlerOptions } from './runtime-args.mjs';

const { options, port } = benchHandlerOptions(Bun.argv.slice(2));
serveOnBun(createHttpHandler(createBenchServer(), options), { port });
