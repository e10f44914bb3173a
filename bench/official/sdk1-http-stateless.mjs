// Official SDK 1.x over Streamable HTTP without sessions, SSE answers (its default).
import { serveSdk1Stateless } from './sdk1-http-app.mjs';

serveSdk1Stateless();
