/**
 * Keel's Streamable HTTP bench server without sessions, with zod input schemas
 * (`npm run bench:http-stateless-zod`).
 */
import { startBenchHttp } from './keel-http-serve.js';
import { createZodBenchServer } from './keel-zod-tools.js';

await startBenchHttp({ sessions: false }, createZodBenchServer());
