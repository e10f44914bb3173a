// Official SDK v2 over Streamable HTTP without sessions, JSON answers (`enableJsonResponse: true`).
import { serveSdk2Stateless } from './sdk2-http-app.mjs';

serveSdk2Stateless({ enableJsonResponse: true });
