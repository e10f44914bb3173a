/**
 * Keel's Streamable HTTP bench server with sessions (`npm run bench:http`), default limits.
 */
import { startBenchHttp } from './keel-http-serve.js';

await startBenchHttp({});
