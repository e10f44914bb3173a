/**
 * Issue 24 point 6: `McpServerOptions` is built on the low-level `ServerOptions`, so an option added
 * there is declared once and reaches the low-level server through McpServer with no change in it;
 * McpServer's own options stay with McpServer.
 */
import { expect, expectTypeOf, test } from 'vitest';
import { McpServer, type McpServerOptions, type ServerOptions } from 'keel-mcp/server';
import { useProcessGuard } from '../helpers/guard.js';

useProcessGuard();

test('every ServerOptions option is an McpServerOptions option of the same type (capabilities narrowed)', () => {
  type Shared = Exclude<keyof ServerOptions, 'capabilities'>;
  expectTypeOf<Exclude<keyof ServerOptions, keyof McpServerOptions>>().toEqualTypeOf<never>();
  expectTypeOf<Pick<McpServerOptions, Shared>>().toEqualTypeOf<Pick<ServerOptions, Shared>>();
});

test("the low-level server gets the shared options as given, and none of McpServer's own", () => {
  const onerror = (): void => undefined;
  const shared = {
    instructions: 'Use the tools',
    connection: { drainMs: 5 },
    onerror,
    caching: { default: { ttlMs: 1_000 } },
    maxSubscriptions: 3,
    maxSubscriptionsPerClient: 2,
    maxResourceSubscriptions: 7,
  } satisfies Required<Omit<ServerOptions, 'capabilities'>>;
  const mcp = new McpServer(
    { name: 's', version: '1' },
    {
      ...shared,
      pageSize: 5,
      defaultLogLevel: 'info',
      logging: false,
      capabilities: { experimental: { x: {} } },
      maxInputRounds: 2,
      requestState: { ttlMs: 60_000 },
      onSwallowedRound: () => undefined,
    },
  );
  expect(mcp.server.options).toEqual(shared);
  expect(mcp.server.instructions).toBe('Use the tools');
  expect(mcp.onerror).toBe(onerror);
});

test('onerror left out keeps the stderr default; onerror: undefined is silent', () => {
  expect(new McpServer({ name: 's', version: '1' }).onerror).toBeTypeOf('function');
  expect(new McpServer({ name: 's', version: '1' }, { onerror: undefined }).onerror).toBeUndefined();
});
