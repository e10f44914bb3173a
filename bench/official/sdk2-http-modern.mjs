// Official SDK v2 serving 2026-07-28 over HTTP: `createMcpHandler` (a fresh server per request,
// JSON answers unless a call streams, its default 'auto') wrapped for node:http by
// `toNodeHandler` from `@modelcontextprotocol/node`, behind the same Host/Origin guards as the
// other SDK v2 setups.
import { createServer } from 'node:http';
import {
  localhostHostValidation,
  localhostOriginValidation,
  toNodeHandler,
} from '@modelcontextprotocol/node';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { createSdk2ModernServer } from './sdk2-modern-server.mjs';
import { badRequest, listen } from './read-json.mjs';

const validateHost = localhostHostValidation();
const validateOrigin = localhostOriginValidation();
const handle = toNodeHandler(createMcpHandler(() => createSdk2ModernServer()));
listen(
  createServer(async (req, res) => {
    try {
      if (!validateHost(req, res) || !validateOrigin(req, res)) return;
      await handle(req, res);
    } catch (error) {
      if (!res.headersSent) badRequest(res, 500, String(error));
    }
  }),
);
