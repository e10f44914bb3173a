/**
 * Keel's Streamable HTTP bench server with sessions and zod input schemas
 * (`npm run bench:http-zod`), default limits.
 */
import { startBenchHttp } from './keel-http-serve.js';
import { createZodBenchServer } from './keel-zod-tools.js';

await startBenchHttp({}, createZodBenchServer());
