/**
 * `keel-mcp/http`: Streamable HTTP. The server host (`createHttpHandler`: the web-standard
 * handler, its session table, event store and cluster backplane) and, from the transports layer,
 * the client side (`StreamableHttpClientTransport`).
 */
export { createHttpHandler, type HttpHandler, type HttpRequestExtra } from './http-handler.js';
export type { WaitUntilContext } from '../../transports/http/server-wire/background.js';
export {
  InMemoryEventStore,
  StreamEvictedError,
  type EventStore,
  type InMemoryEventStoreOptions,
} from '../../transports/http/server-wire/event-store.js';
export { HostOriginPolicy } from './host-origin-policy.js';
export {
  DEFAULT_IDLE_MS,
  DEFAULT_KEEP_ALIVE_MS,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_QUEUED_BYTES,
  DEFAULT_MAX_QUEUED_BYTES_PER_STREAM,
  DEFAULT_MAX_PER_CLIENT,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_RECENT_WORK_MS,
  DEFAULT_RETRY_MS,
  LOOPBACK_HOSTS,
  type HttpHandlerOptions,
  type SessionClient,
  type SessionEndReason,
  type SessionOptions,
} from './options.js';
export { DEFAULT_RELAY_CHECK_MS } from './options.js';
export type { Backplane } from './cluster/backplane.js';
export type { Relay, RelayListener } from './cluster/relay.js';
export { MemoryRelayHub } from './cluster/memory-relay.js';
export {
  InMemorySessionStore,
  type SessionCreateResult,
  type SessionRecord,
  type SessionStore,
} from './session-store.js';
export {
  StreamableHttpClientTransport,
  HttpTransportError,
  SessionExpiredError,
  type ReconnectOptions,
  type StreamableHttpClientOptions,
} from '../../transports/http/client/index.js';
