/**
 * Keel's stdio bench server (`npm run bench:stdio`). Exits when stdin ends.
 */
import { serveStdio } from '../../src/transports/stdio/index.js';
import { createBenchServer } from './keel-tools.js';

await serveStdio(createBenchServer());
