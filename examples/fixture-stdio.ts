/**
 * The conformance fixture over stdio: `node dist/examples/fixture-stdio.js`. stdout carries
 * protocol messages only; diagnostics go to stderr.
 */
import { serveStdio } from '../src/hosts/stdio/index.js';
import { createFixtureServer } from './fixture-server.js';

await serveStdio(createFixtureServer(), {
  logger: {
    debug() {},
    error: (message, detail) => console.error(`[fixture] ${message}`, detail ?? ''),
  },
});
