// The official SDK v2 (`@modelcontextprotocol/server`) over stdio, through its own entry
// `serveStdio`, with the benchmark's tools. keel doctor's reports on it are in docs/doctor.md.
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { createSdk2Server } from '../../../bench/official/sdk2-server.mjs';

serveStdio(() => createSdk2Server());
