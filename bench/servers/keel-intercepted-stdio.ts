/**
 * Keel's stdio bench server with three no-op interceptors. Exits when stdin ends.
 */
import { serveStdio } from 'keel-mcp/stdio';
import { createInterceptedBenchServer } from './keel-intercepted.js';

await serveStdio(createInterceptedBenchServer());
