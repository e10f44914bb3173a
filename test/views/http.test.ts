/**
 * Issue 26 views over real HTTP (127.0.0.1) with the OAuth resource server and two bearer
 * tokens: each token lists its own view in both eras, a hidden tool is the unknown-tool error,
 * a visible tool the token lacks scopes for still gets the 403 step-up, and a legacy session's
 * `list_changed` follows its token's view.
 */
import { afterEach, describe, expect, test } from 'vitest';
import type { AuthChallenge, HttpAuthProvider } from 'keel-mcp/core';
import { McpClient } from 'keel-mcp/client';
import { StreamableHttpClientTransport } from 'keel-mcp/http';
import type { HttpServing } from 'keel-mcp/node';
import { McpServer } from 'keel-mcp/server';
import { useProcessGuard, within } from '../helpers/guard.js';
import { serveProtected, staticAuth, tok } from '../auth-server/support.js';
import { names } from './support.js';

useProcessGuard();

let serving: HttpServing | undefined;
const clients: McpClient[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
  await serving?.close({ deadlineMs: 2_000 });
  serving = undefined;
});

const ADMINS = { scopes: ['admin'] };

function build(): McpServer {
  const server = new McpServer({ name: 'views-http', version: '1.0.0' }, { onerror: undefined });
  server.tool('public', { description: 'Everyone' }, () => 'public');
  server.tool('admin', { description: 'Admins', visibleTo: ADMINS }, () => 'admin');
  server.tool(
    'upload',
    { description: 'Listed to all, needs files:write', scopes: ['files:write'] },
    () => 'up',
  );
  server.resource('open', 'file:///open', {}, () => 'open');
  return server;
}

/** A fixed token; a challenge (401/403) is recorded and not retried. */
function bearer(token: string): HttpAuthProvider & { challenges: AuthChallenge[] } {
  const challenges: AuthChallenge[] = [];
  return {
    challenges,
    authorization: async () => `Bearer ${token}`,
    challenge: async (challenge) => {
      challenges.push(challenge);
      return false;
    },
  };
}

async function connect(url: string, era: 'legacy' | 'modern', auth: HttpAuthProvider): Promise<McpClient> {
  const client = new McpClient({ name: `views-${era}`, version: '1.0.0' }, { era });
  clients.push(client);
  await within(client.connect(new StreamableHttpClientTransport(url, { auth })), 10_000, 'connect');
  return client;
}

describe.each(['legacy', 'modern'] as const)('issue 26 views over HTTP (%s era)', (era) => {
  test('two tokens, two views; hidden = unknown tool; visible but unscoped = 403 step-up', async () => {
    serving = await serveProtected(staticAuth(), {}, build());
    const alice = await connect(serving.url, era, bearer(tok('alice', 'mcp', 'admin')));
    const bobAuth = bearer(tok('bob', 'mcp'));
    const bob = await connect(serving.url, era, bobAuth);

    expect(names((await alice.listTools()).tools)).toEqual(['public', 'admin', 'upload']);
    expect(names((await bob.listTools()).tools)).toEqual(['public', 'upload']);
    expect((await alice.callTool('admin', {})).content).toEqual([{ type: 'text', text: 'admin' }]);

    const failure = (promise: Promise<unknown>) =>
      promise.then(
        () => undefined,
        (error: { code?: unknown; message?: unknown }) => ({ code: error.code, message: error.message }),
      );
    const hidden = await failure(bob.callTool('admin', {}));
    const unknown = await failure(bob.callTool('nope', {}));
    expect(hidden).toEqual({
      code: unknown?.code,
      message: String(unknown?.message).replace('nope', 'admin'),
    });
    expect(bobAuth.challenges).toEqual([]);

    // `scopes` keep the tool listed and ask for a step-up, unlike `visibleTo`.
    await expect(bob.callTool('upload', {})).rejects.toThrow();
    expect(
      bobAuth.challenges.map((c) => [c.status, /error="([^"]+)"/.exec(c.wwwAuthenticate ?? '')?.[1]]),
    ).toEqual([[403, 'insufficient_scope']]);
  });
});

test("issue 26 views over HTTP: a legacy session's list_changed follows its token's view", async () => {
  const server = build();
  serving = await serveProtected(staticAuth(), {}, server);
  const alice = await connect(serving.url, 'legacy', bearer(tok('alice', 'mcp', 'admin')));
  const bob = await connect(serving.url, 'legacy', bearer(tok('bob', 'mcp')));
  const seen = { alice: [] as string[], bob: [] as string[] };
  const waiters: (() => void)[] = [];
  const record = (who: 'alice' | 'bob', what: string) => {
    seen[who].push(what);
    for (const wake of waiters.splice(0)) wake();
  };
  alice.on('toolsChanged', () => record('alice', 'tools'));
  bob.on('toolsChanged', () => record('bob', 'tools'));
  alice.on('resourceUpdated', ({ uri }) => record('alice', uri));
  bob.on('resourceUpdated', ({ uri }) => record('bob', uri));
  const until = (test: () => boolean) =>
    within(
      (async () => {
        while (!test()) await new Promise<void>((resolve) => waiters.push(resolve));
      })(),
      5_000,
      'notifications',
    );
  // Each session's caller is its latest request's (these), and both watch file:///open.
  await alice.subscribeResource('file:///open');
  await bob.subscribeResource('file:///open');

  server.tool('beta', { description: 'Admins', visibleTo: ADMINS }, () => 'beta');
  // A marker after the change on the same stream: once it arrived, anything sent before it did.
  await new Promise<void>((resolve) => queueMicrotask(resolve));
  await server.notifyResourceUpdated('file:///open');
  await until(() => seen.alice.includes('file:///open') && seen.bob.includes('file:///open'));
  expect(seen).toEqual({ alice: ['tools', 'file:///open'], bob: ['file:///open'] });
});
