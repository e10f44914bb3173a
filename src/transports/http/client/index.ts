export { StreamableHttpClientTransport } from './streamable-http-client-transport.js';
export { HttpTransportError, SessionExpiredError } from '../../../core/http-errors.js';
export type { ReconnectOptions, StreamableHttpClientOptions } from './options.js';
