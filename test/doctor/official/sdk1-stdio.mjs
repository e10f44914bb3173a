// The official TypeScript SDK 1.x over stdio, exactly as its README starts a server (no shutdown
// code of our own), with the benchmark's tools (echo; wait_sampling asks the client to sample).
// keel doctor's reports on it are in docs/doctor.md.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createSdk1Server } from '../../../bench/official/sdk1-server.mjs';

const server = createSdk1Server();
await server.connect(new StdioServerTransport());
