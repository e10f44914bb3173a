// Official SDK v2 over Streamable HTTP without sessions, SSE answers (its default).
import { serveSdk2Stateless } from './sdk2-http-app.mjs';

serveSdk2Stateless();
