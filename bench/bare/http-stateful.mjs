// Bare HTTP limit with sessions.
import { startBareHttp } from './http.mjs';

startBareHttp({ stateless: false });
