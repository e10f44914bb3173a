// Official SDK v2 over Streamable HTTP with sessions, SSE answers (its default). See sdk2-http-app.mjs.
import { serveSdk2Sessions } from './sdk2-http-app.mjs';

serveSdk2Sessions();
