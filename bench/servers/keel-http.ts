/**
 * Keel's Streamable HTTP bench server with sessions (`npm run bench:http`), default limits but
 * the session cap (BENCH_SESSION_LIMITS).
 */
import { startBenchHttp } from './keel-http-serve.js';

await startBenchHttp({});
