// Official SDK 1.x over Streamable HTTP without sessions, JSON answers (`enableJsonResponse: true`).
import { serveSdk1Stateless } from './sdk1-http-app.mjs';

serveSdk1Stateless({ enableJsonResponse: true });
