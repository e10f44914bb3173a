/**
 * Issue 26 views: each caller sees the tools, resources, templates and prompts it may see, and an
 * item hidden from it is exactly an item that does not exist (the same answer on the wire, byte
 * for byte, in both eras), pagination included.
 */
import { afterEach, describe, expect, test } from 'vitest';
import type { AuthInfo, JsonObject } from 'keel-mcp/core';
import { McpServer, type ViewCaller } from 'keel-mcp/server';
import { useProcessGuard, within } from '../helpers/guard.js';
import { auth, connectAs, ERAS, names, type Caller, type Era } from './support.js';

useProcessGuard();

const open: Caller[] = [];
afterEach(async () => {
  for (const caller of open.splice(0)) await caller.client.close();
});

async function as(server: McpServer, era: Era, who: AuthInfo | undefined): Promise<Caller> {
  const caller = await connectAs(server, era, who);
  open.push(caller);
  return caller;
}

const ALICE_ADMIN = auth('alice', 'admin');
const BOB = auth('bob');

/** `hidden: false` builds the same server without the items that have rules (the "never registered" twin). */
function build(hidden = true, pageSize?: number): McpServer {
  const server = new McpServer(
    { name: 'views', version: '1.0.0' },
    { onerror: undefined, ...(pageSize === undefined ? {} : { pageSize }) },
  );
  server.tool('public', { description: 'Everyone' }, () => 'public');
  server.resource('open', 'file:///open', {}, () => 'open');
  // A completer and a task tool everyone sees: the twins declare the same capabilities (those are
  // server-wide, derived from everything registered).
  server.prompt(
    'welcome',
    { description: 'Everyone', args: [{ name: 'who' }], complete: { who: () => ['you'] } },
    () => 'hi',
  );
  server.tool('chores', { description: 'Everyone', execution: { taskSupport: 'optional' } }, () => 'done');
  if (!hidden) return server;
  server.tool('admin', { description: 'Admins', visibleTo: { scopes: ['admin'] } }, () => 'admin');
  server.tool('mine', { description: 'Alice', visibleTo: { subjects: ['alice'] } }, () => 'alice');
  server.tool('bobs', { description: "Bob's app", visibleTo: { clientIds: ['bob-app'] } }, () => 'bob');
  server.tool(
    'a-people',
    {
      description: 'Subjects starting with a',
      visibleTo: (c: ViewCaller) => c.auth?.subject?.startsWith('a') === true,
    },
    () => 'a',
  );
  server.tool(
    'jobs',
    { description: 'Task tool', execution: { taskSupport: 'optional' }, visibleTo: { scopes: ['admin'] } },
    () => 'job',
  );
  server.resource('secret', 'file:///secret', { visibleTo: { scopes: ['admin'] } }, () => 'secret');
  server.resourceTemplate(
    'vault',
    'vault://{id}',
    { visibleTo: { scopes: ['admin'] } },
    (_uri, { id }) => `vault ${String(id)}`,
    { complete: { id: () => ['1', '2'] }, list: () => [{ uri: 'vault://1', name: 'vault-1' }] },
  );
  server.prompt(
    'ops',
    {
      description: 'Admins',
      args: [{ name: 'target' }],
      complete: { target: () => ['db'] },
      visibleTo: { scopes: ['admin'] },
    },
    () => 'ops',
  );
  return server;
}

describe.each(ERAS)('issue 26 views (%s era)', (era) => {
  test('each caller lists what it may see, in registration order', async () => {
    const server = build();
    const alice = await as(server, era, ALICE_ADMIN);
    const bob = await as(server, era, BOB);
    const anonymous = await as(server, era, undefined);

    expect(names((await alice.client.listTools()).tools)).toEqual([
      'public',
      'chores',
      'admin',
      'mine',
      'a-people',
      'jobs',
    ]);
    expect(names((await bob.client.listTools()).tools)).toEqual(['public', 'chores', 'bobs']);
    expect(names((await anonymous.client.listTools()).tools)).toEqual(['public', 'chores']);

    expect(names((await alice.client.listResources()).resources)).toEqual(['open', 'secret', 'vault-1']);
    expect(names((await bob.client.listResources()).resources)).toEqual(['open']);
    expect(names((await alice.client.listResourceTemplates()).resourceTemplates)).toEqual(['vault']);
    expect((await bob.client.listResourceTemplates()).resourceTemplates).toEqual([]);
    expect(names((await alice.client.listPrompts()).prompts)).toEqual(['welcome', 'ops']);
    expect(names((await bob.client.listPrompts()).prompts)).toEqual(['welcome']);

    // And what is listed is what works.
    expect((await alice.client.callTool('admin', {})).content).toEqual([{ type: 'text', text: 'admin' }]);
    expect((await alice.client.readResource('vault://7')).contents).toEqual([
      { uri: 'vault://7', text: 'vault 7' },
    ]);
  });

  test('a hidden item is answered byte for byte as one never registered', async () => {
    const bobHere = await as(build(), era, BOB);
    const bobThere = await as(build(false), era, BOB);
    const requests: [string, JsonObject][] = [
      ['tools/call', { name: 'admin', arguments: {} }],
      ['tools/call', { name: 'mine', arguments: {} }],
      ['tools/call', { name: 'a-people', arguments: {} }],
      // A task tool asked for a task: "unknown tool", never a task.
      ['tools/call', { name: 'jobs', arguments: {}, task: {} }],
      ['resources/read', { uri: 'file:///secret' }],
      ['resources/read', { uri: 'vault://1' }],
      ['prompts/get', { name: 'ops', arguments: {} }],
      [
        'completion/complete',
        { ref: { type: 'ref/prompt', name: 'ops' }, argument: { name: 'target', value: '' } },
      ],
      [
        'completion/complete',
        { ref: { type: 'ref/resource', uri: 'vault://{id}' }, argument: { name: 'id', value: '' } },
      ],
    ];
    for (const [method, params] of requests) {
      const here = await answerOf(bobHere, method, params);
      const there = await answerOf(bobThere, method, params);
      expect(here, `${method} ${JSON.stringify(params)}`).toBe(there);
    }
    // Sanity: the hidden items are there for a caller who may see them.
    const alice = await as(build(), era, ALICE_ADMIN);
    expect(await answerOf(alice, 'tools/call', { name: 'admin', arguments: {} })).toContain('"text":"admin"');
  });

  test("pagination: every page is of the caller's view; a cursor never leaks or skips", async () => {
    const server = build(false, 2);
    const admin = { scopes: ['admin'] };
    for (let i = 1; i <= 7; i++)
      server.tool(
        `t${i}`,
        { description: `Tool ${i}`, ...(i % 2 === 0 ? { visibleTo: admin } : {}) },
        () => 'x',
      );
    const alice = await as(server, era, ALICE_ADMIN);
    const bob = await as(server, era, BOB);
    const walk = async (caller: Caller, cursor?: string) => {
      const seen: string[] = [];
      for (let page = 0; page < 10; page++) {
        const result = await caller.client.listTools(cursor === undefined ? {} : { cursor });
        seen.push(...names(result.tools));
        cursor = result.nextCursor;
        if (cursor === undefined) break;
      }
      return seen;
    };
    expect(await walk(alice)).toEqual(['public', 'chores', 't1', 't2', 't3', 't4', 't5', 't6', 't7']);
    expect(await walk(bob)).toEqual(['public', 'chores', 't1', 't3', 't5', 't7']);
    // Alice's second-page cursor in Bob's hands: his own view from there, nothing of hers.
    const aliceCursor = (await alice.client.listTools()).nextCursor!;
    expect(await walk(bob, aliceCursor)).toEqual(['t1', 't3', 't5', 't7']);
  });

  test('a new token on the same session changes the view at once', async () => {
    const server = build();
    const caller = await as(server, era, BOB);
    expect(names((await caller.client.listTools()).tools)).toEqual(['public', 'chores', 'bobs']);
    caller.auth = auth('bob', 'admin');
    expect(names((await caller.client.listTools()).tools)).toEqual([
      'public',
      'chores',
      'admin',
      'bobs',
      'jobs',
    ]);
    expect((await caller.client.callTool('admin', {})).content).toEqual([{ type: 'text', text: 'admin' }]);
  });
});

/** The server's answer to `method` (result or error) as written, without the JSON-RPC id. */
async function answerOf(caller: Caller, method: string, params: JsonObject): Promise<string> {
  await within(
    caller.client.request(method, params).then(
      () => undefined,
      () => undefined,
    ),
  );
  const last = caller.written.at(-1) as unknown as JsonObject;
  const { id: _id, ...answer } = last;
  return JSON.stringify(answer);
}

test('issue 26 views: visibleTo is checked at registration and updatable like scopes', async () => {
  const server = new McpServer({ name: 'views', version: '1.0.0' }, { onerror: undefined });
  expect(() => server.tool('x', { description: 'x', visibleTo: {} }, () => 'x')).toThrow(
    /needs scopes, subjects or clientIds/,
  );
  expect(() =>
    server.tool('x', { description: 'x', visibleTo: { roles: ['a'] } as never }, () => 'x'),
  ).toThrow(/unknown field "roles"/);
  expect(() => server.tool('x', { description: 'x', visibleTo: { scopes: ['a b'] } }, () => 'x')).toThrow(
    /not a valid OAuth scope/,
  );
  expect(() => server.prompt('p', { description: 'p', visibleTo: { subjects: [''] } }, () => 'p')).toThrow(
    /non-empty strings/,
  );
  const tool = server.tool('later', { description: 'Later' }, () => 'later');
  const bob = await connectAs(server, 'legacy', BOB);
  try {
    expect(names((await bob.client.listTools()).tools)).toEqual(['later']);
    tool.update({ visibleTo: { scopes: ['admin'] } });
    expect((await bob.client.listTools()).tools).toEqual([]);
    tool.update({ visibleTo: undefined });
    expect(names((await bob.client.listTools()).tools)).toEqual(['later']);
  } finally {
    await bob.client.close();
  }
});

test('issue 26 views: a throwing predicate hides the item and is reported to onerror', async () => {
  const failures: { target?: string; method: string }[] = [];
  const server = new McpServer(
    { name: 'views', version: '1.0.0' },
    { onerror: (_error, failure) => void failures.push(failure) },
  );
  server.tool(
    'flaky',
    {
      description: 'Flaky rule',
      visibleTo: () => {
        throw new Error('rule broke');
      },
    },
    () => 'x',
  );
  const bob = await connectAs(server, 'legacy', BOB);
  try {
    expect((await bob.client.listTools()).tools).toEqual([]);
    expect(failures).toEqual([expect.objectContaining({ method: 'visibleTo', target: 'tool "flaky"' })]);
  } finally {
    await bob.client.close();
  }
});

test('issue 26 views: a predicate runs once per list, and only for its own item on a call', async () => {
  const server = new McpServer({ name: 'views', version: '1.0.0' }, { onerror: undefined });
  let runs = 0;
  server.tool('public', { description: 'Everyone' }, () => 'public');
  server.tool('counted', { description: 'Counted', visibleTo: () => (runs++, true) }, () => 'counted');
  const bob = await as(server, 'legacy', BOB);
  await bob.client.listTools();
  expect(runs).toBe(1);
  await bob.client.callTool('public', {});
  expect(runs).toBe(1);
  await bob.client.callTool('counted', {});
  expect(runs).toBe(2);
});
