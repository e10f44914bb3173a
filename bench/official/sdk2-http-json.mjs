// Official SDK v2 over Streamable HTTP with sessions, JSON answers (`enableJsonResponse: true`).
import { serveSdk2Sessions } from './sdk2-http-app.mjs';

serveSdk2Sessions({ enableJsonResponse: true });
