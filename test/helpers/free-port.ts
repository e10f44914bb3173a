import { createServer } from 'node:net';

/**
 * A port free right now on 127.0.0.1, for what must know its port before it listens (a loopback
 * redirect URI registered up front). Another process could take it meanwhile; tests accept that.
 */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
