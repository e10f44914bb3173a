// Bare HTTP limit without sessions.
import { startBareHttp } from './http.mjs';

startBareHttp({ stateless: true });
