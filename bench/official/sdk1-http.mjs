// Official SDK 1.x over Streamable HTTP with sessions, SSE answers (its default). See sdk1-http-app.mjs.
import { serveSdk1Sessions } from './sdk1-http-app.mjs';

serveSdk1Sessions();
