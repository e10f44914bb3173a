// Official SDK v2 over stdio, through its serving entry `serveStdio`.
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { createSdk2Server } from './sdk2-server.mjs';

serveStdio(() => createSdk2Server());
