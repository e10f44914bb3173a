/**
 * Keel's stdio bench server with zod input schemas (`npm run bench:stdio-zod`). Exits when stdin
 * ends.
 */
import { serveStdio } from '../../src/transports/stdio/index.js';
import { createZodBenchServer } from './keel-zod-tools.js';

await serveStdio(createZodBenchServer());
