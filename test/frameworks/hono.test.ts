/**
 * Hono (on @hono/node-server): Keel's handler is web-standard, so mounting it is the documented
 * one-liner `app.all('/mcp', (c) => handler(c.req.raw))` (docs/frameworks.md). A real Hono server
 * on 127.0.0.1:0 passes the framework scenario.
 */
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { useProcessGuard } from '../helpers/guard.js';
import { AUTH, frameworkScenario } from './support/scenario.js';

useProcessGuard();

frameworkScenario(async (handler) => {
  const app = new Hono<{ Variables: { auth: unknown } }>();
  // An auth middleware's result, passed on explicitly (docs/frameworks.md).
  app.use(async (c, next) => {
    c.set('auth', AUTH);
    await next();
  });
  app.all('/mcp', (c) => handler(c.req.raw, { authInfo: c.get('auth') }));
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const started = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(started));
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        if ('closeAllConnections' in server) server.closeAllConnections();
      }),
  };
});
