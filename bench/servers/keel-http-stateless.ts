/**
 * Keel's Streamable HTTP bench server without sessions (`npm run bench:http-stateless`).
 */
import { startBenchHttp } from './keel-http-serve.js';

await startBenchHttp({ sessions: false });
