// Official SDK 1.x over Streamable HTTP with sessions, JSON answers (`enableJsonResponse: true`).
import { serveSdk1Sessions } from './sdk1-http-app.mjs';

serveSdk1Sessions({ enableJsonResponse: true });
