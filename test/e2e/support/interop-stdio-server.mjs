// The conformance fixture plus the probe and interop tools, over stdio (built package: run
// `npm run build` first). stdout carries protocol messages only; probe events go to stderr as
// `E2E <json>` lines (see probes.ts).
import process from 'node:process';
import { serveStdio } from 'keel-mcp/stdio';
import { createFixtureServer } from '../../../dist/examples/fixture-server.js';
import { registerProbeTools } from '../fixtures/probe-tools.mjs';
import { registerInteropTools } from './interop-tools.mjs';

const server = createFixtureServer();
registerProbeTools(server, (event) => process.stderr.write(`E2E ${JSON.stringify(event)}\n`));
registerInteropTools(server);
await serveStdio(server);
