export * from './errors.js';
export * from './jsonrpc.js';
export * from './transport.js';
export type * from './auth.js';
export { Inbox } from './inbox.js';
export * from './engine/index.js';
export * from './protocol-version.js';
export * from './types/index.js';
