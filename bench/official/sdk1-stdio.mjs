// Official SDK 1.x over stdio.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createSdk1Server } from './sdk1-server.mjs';

const server = createSdk1Server();
await server.connect(new StdioServerTransport());
process.stdin.on('end', () => void server.close().finally(() => process.exit(0)));
