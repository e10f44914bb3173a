/**
 * Keel's Streamable HTTP bench server with sessions and three no-op interceptors.
 */
import { startBenchHttp } from './keel-http-serve.js';
import { createInterceptedBenchServer } from './keel-intercepted.js';

await startBenchHttp({}, createInterceptedBenchServer());
