/**
 * A server session routes the built-in methods (`initialize`, `ping`, `notifications/initialized`)
 * through its connection's two fallbacks instead of per-session handler tables (memory per idle
 * HTTP session). What must hold: a handler set on the connection itself still comes first,
 * `notifications/initialized` completes the handshake once and reaches no user handler, and each
 * session keeps its own state, made on first use.
 */
import { afterEach, expect, test } from 'vitest';
import { Client } from 'keel-mcp/client';
import { McpServer } from 'keel-mcp/server';
import { useProcessGuard } from '../helpers/guard.js';
import { createRecordingPair } from '../helpers/recording-transport.js';
import { connect, type Connected } from './harness.js';

useProcessGuard();
const open: Connected[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

test('notifications/initialized completes the handshake once and is not passed to user handlers', async () => {
  const server = new McpServer({ name: 's', version: '1' });
  const seen: string[] = [];
  server.server.setNotificationHandler('notifications/initialized', () => void seen.push('user'));
  server.server.setNotificationHandler('notifications/roots/list_changed', () => void seen.push('roots'));
  const c = await connect(server);
  open.push(c);
  let later = 0;
  c.session.onInitialized(() => later++);
  expect(c.session.initialized).toBe(true);
  expect(later).toBe(1);
  // A second one changes nothing; other notifications still reach their handler.
  await c.client.notify('notifications/initialized');
  await c.client.notify('notifications/roots/list_changed');
  await c.client.request('ping', {});
  expect(seen).toEqual(['roots']);
  expect(later).toBe(1);
});

test('callbacks registered before notifications/initialized run once each, in order', async () => {
  const server = new McpServer({ name: 's', version: '1' });
  const [clientSide, serverSide] = createRecordingPair();
  const session = server.connect(serverSide);
  const order: number[] = [];
  session.onInitialized(() => order.push(1));
  session.onInitialized(() => order.push(2));
  session.onInitialized(() => order.push(3));
  const client = new Client({ name: 'c', version: '1' });
  await client.connect(clientSide);
  await client.request('ping', {});
  expect(order).toEqual([1, 2, 3]);
  await client.close();
  await session.closed;
});

test('a handler set on the connection comes before the built-in routing; ping and unknown methods as before', async () => {
  const server = new McpServer({ name: 's', version: '1' });
  const c = await connect(server);
  open.push(c);
  expect(await c.client.request('ping', {})).toEqual({});
  await expect(c.client.request('no/such', {})).rejects.toMatchObject({ code: -32601 });
  c.session.connection.setRequestHandler('ping', () => ({ custom: true }));
  expect(await c.client.request('ping', {})).toEqual({ custom: true });
  const other = await connect(server);
  open.push(other);
  expect(await other.client.request('ping', {})).toEqual({});
});

test("one session's Keel state (log level) and user state are its own, made on first use", async () => {
  const server = new McpServer({ name: 's', version: '1' }, { capabilities: { logging: {} } });
  const a = await connect(server);
  const b = await connect(server);
  open.push(a, b);
  await a.client.request('logging/setLevel', { level: 'error' });
  expect(a.session.internal.get('keel.logLevel')).toBe('error');
  expect(b.session.internal.has('keel.logLevel')).toBe(false);
  expect(a.session.internal).not.toBe(b.session.internal);
  a.session.state.set('k', 1);
  expect(b.session.state.has('k')).toBe(false);
  expect(a.session.state).toBe(a.session.state);
  // Each session leaves the server's table when its connection closes, and only then.
  expect([...server.server.sessions]).toEqual([a.session, b.session]);
  await a.close();
  expect([...server.server.sessions]).toEqual([b.session]);
  await b.close();
  expect(server.server.sessions.size).toBe(0);
});
