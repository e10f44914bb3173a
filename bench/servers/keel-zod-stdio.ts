/**
 * Keel's stdio bench server with zod input schemas (`npm run bench:stdio-zod`). Exits when stdin
 * ends.
 */
import { serveStdio } from 'keel-mcp/stdio';
import { createZodBenchServer } from './keel-zod-tools.js';

await serveStdio(createZodBenchServer());
