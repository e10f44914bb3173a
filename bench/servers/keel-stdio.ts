/**
 * Keel's stdio bench server (`npm run bench:stdio`). Exits when stdin ends.
 */
import { serveStdio } from 'keel-mcp/stdio';
import { createBenchServer } from './keel-tools.js';

await serveStdio(createBenchServer());
