/** `ctx.state` (issue 28): per-session and per-principal values, in memory or on Redis. */
export { HandlerState, ServerState } from './handler-state.js';
export { InMemoryStateStore } from './memory-state-store.js';
export type { StateOptions } from './state-options.js';
export { StateScope } from './state-scope.js';
export { stateLimitError, utf8Length, type StateStore, type StateWriteOptions } from './state-store.js';
