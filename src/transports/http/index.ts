// server exports (owned by the HTTP server work)
export * from './server/index.js';
// client exports below
export * from './client/index.js';
