/**
 * Issue 26 views and `scopes` together: given the caller's token, an item a declarative
 * `visibleTo` hides from it needs no scopes at the HTTP gate (the request goes on to "not found"
 * instead of a 403 naming the item's scopes); visible items keep their scopes (403 step-up).
 */
import { expect, test } from 'vitest';
import { McpServer, type ViewCaller } from 'keel-mcp/server';
import { auth } from './support.js';

const ADMIN = ['admin'];

function build(): McpServer {
  const server = new McpServer({ name: 'views', version: '1.0.0' }, { onerror: undefined });
  server.tool('purge', { description: 'Admins', visibleTo: { scopes: ADMIN }, scopes: ADMIN }, () => 'x');
  server.tool('upload', { description: 'Everyone', scopes: ['files:write'] }, () => 'x');
  server.tool(
    'by-rule',
    { description: 'Predicate', visibleTo: (c: ViewCaller) => c.session.state.has('beta'), scopes: ADMIN },
    () => 'x',
  );
  server.prompt(
    'ops',
    { description: 'Admins', visibleTo: { subjects: ['alice'] }, scopes: ADMIN },
    () => 'x',
  );
  server.resource('secret', 'file:///secret', { visibleTo: { scopes: ADMIN }, scopes: ADMIN }, () => 'x');
  server.resourceTemplate(
    'vault',
    'vault://{id}',
    { visibleTo: { scopes: ADMIN }, scopes: ['vault'] },
    () => 'v',
    {
      complete: { id: () => [] },
    },
  );
  return server;
}

test('issue 26 views: requiredScopes skips what the token cannot see, keeps what it can', () => {
  const server = build();
  const bob = auth('bob');
  const alice = auth('alice', 'admin');
  const ask = (method: string, params: Record<string, unknown>, who?: ReturnType<typeof auth>) =>
    server.requiredScopes(method, params, who);
  const cases: [string, Record<string, unknown>][] = [
    ['tools/call', { name: 'purge' }],
    ['prompts/get', { name: 'ops' }],
    ['resources/read', { uri: 'file:///secret' }],
    ['resources/subscribe', { uri: 'vault://1' }],
    ['completion/complete', { ref: { type: 'ref/resource', uri: 'vault://{id}' } }],
    ['subscriptions/listen', { notifications: { resourceSubscriptions: ['file:///secret'] } }],
  ];
  for (const [method, params] of cases) {
    // Without a token (what the gate passes today) and for a caller who sees it: the scopes.
    expect(ask(method, params), method).toBeDefined();
    expect(ask(method, params, alice), method).toEqual(ask(method, params));
    // Hidden from Bob: nothing to step up to, so nothing that would name the item.
    expect(ask(method, params, bob), method).toBeUndefined();
  }
  // Visible to everyone: Bob still needs the scope (403 step-up over HTTP).
  expect(ask('tools/call', { name: 'upload' }, bob)).toEqual(['files:write']);
  // A predicate may read more than the token: decided when the request is served, not here.
  expect(ask('tools/call', { name: 'by-rule' }, bob)).toEqual(ADMIN);
});
