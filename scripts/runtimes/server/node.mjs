// Node 22/24 smoke server: the Node adapter (`serveHttp`) on a free loopback port. Prints its URL
// on one stdout line for the runner; SIGTERM closes it.
import { serveHttp } from '../../../dist/pkg/node.js';
import { createSmokeServer } from './app.mjs';

const { server } = createSmokeServer(`node-${process.versions.node}`);
const serving = await serveHttp(server, { host: '127.0.0.1', port: 0 });
console.log(`KEEL_SMOKE_URL ${serving.url}`);
process.once('SIGTERM', () => void serving.close({ deadlineMs: 2_000 }).then(() => process.exit(0)));
