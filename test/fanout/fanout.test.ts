/**
 * Issue 12, server-wide notification fan-out: McpServers standing for the processes of one
 * deployment, linked through MemoryRelayHub nodes, clients over recording memory pairs (exact
 * counts of what each server wrote to each client). A resource update or a user's
 * `Server.broadcast` on one process reaches every process exactly once (legacy subscribers and
 * 2026-07-28 listens, no echo); a registry change stays on its process; malformed messages are
 * ignored; a failing publish leaves local delivery intact; `leave()` stops both directions.
 */
import { describe, expect, test } from 'vitest';
import { StoreUnavailableError, type JsonObject } from 'keel-mcp/core';
import { MAX_FANOUT_MESSAGE_BYTES } from 'keel-mcp/server';
import { useProcessGuard } from '../helpers/guard.js';
import {
  arrived,
  count,
  joinHub,
  makeServer,
  MemoryLogger,
  UPDATED,
  useDeployment,
  WATCHED,
} from './support.js';

useProcessGuard();
const { hub, deploy, legacy, modern, quiesce } = useDeployment();

const TOOLS_CHANGED = 'notifications/tools/list_changed';
const SUB = 'io.modelcontextprotocol/subscriptionId';

/** Poll once per event-loop turn until `check` holds; fails after 5 s. */
async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!check() && Date.now() < deadline) await new Promise((resolve) => setImmediate(resolve));
  expect(check(), what).toBe(true);
}

/** The fan-out messages of `published` that carry `uri` (barriers excluded by the caller's uri). */
function publishedFor(published: string[], uri: string): JsonObject[] {
  return published
    .map((text) => JSON.parse(text) as JsonObject)
    .filter((m) => (m.params as JsonObject | undefined)?.uri === uri);
}

describe('resources/updated across processes', () => {
  test('raised on server 1: exactly one for its own subscriber, one on server 2 (legacy), one on server 3 (listen)', async () => {
    const [n1, n2, n3] = await deploy(3);
    const own = await legacy(n1!);
    const other = await legacy(n2!);
    const listen = await modern(n3!, { resourceSubscriptions: [WATCHED] });

    await n1!.server.notifyResourceUpdated(WATCHED);
    await arrived(other, UPDATED, WATCHED);
    await arrived(listen, UPDATED, WATCHED);
    await quiesce();

    expect(count(own, UPDATED, WATCHED)).toBe(1);
    expect(count(other, UPDATED, WATCHED)).toBe(1);
    expect(count(listen, UPDATED, WATCHED)).toBe(1);
    const tagged = listen.wire.sent.find((m) => 'method' in m && m.method === UPDATED);
    expect((tagged as { params: JsonObject }).params).toMatchObject({
      uri: WATCHED,
      _meta: { [SUB]: expect.anything() },
    });
    // Published once by its origin, never republished by a receiver.
    expect(publishedFor(n1!.published, WATCHED)).toEqual([
      { t: 'notify', method: UPDATED, params: { uri: WATCHED } },
    ]);
    expect(publishedFor(n2!.published, WATCHED)).toEqual([]);
    expect(publishedFor(n3!.published, WATCHED)).toEqual([]);
  });

  test('a session not subscribed to the URI gets nothing from another process', async () => {
    const [n1, n2] = await deploy(2);
    const other = await legacy(n2!, ['test://something-else']);
    await n1!.server.notifyResourceUpdated(WATCHED);
    await quiesce();
    expect(count(other, UPDATED, WATCHED)).toBe(0);
  });
});

describe('list_changed', () => {
  test("a registry change on server 1 tells server 1's sessions only", async () => {
    const [n1, n2, n3] = await deploy(3);
    const own = await legacy(n1!);
    const other = await legacy(n2!);
    const listen = await modern(n3!, { toolsListChanged: true });

    n1!.server.tool('added', { description: 'added at run time' }, () => 'x');
    await arrived(own, TOOLS_CHANGED);
    await quiesce();

    expect(count(own, TOOLS_CHANGED)).toBe(1);
    expect(count(other, TOOLS_CHANGED)).toBe(0);
    expect(count(listen, TOOLS_CHANGED)).toBe(0);
    expect(n1!.published.filter((text) => text.includes('list_changed'))).toEqual([]);
  });

  test("the user's Server.broadcast fans out, once per session", async () => {
    const [n1, n2, n3] = await deploy(3);
    const own = await legacy(n1!);
    const other = await legacy(n2!);
    const listen = await modern(n3!, { toolsListChanged: true });

    n1!.server.server.broadcast(TOOLS_CHANGED);
    await arrived(other, TOOLS_CHANGED);
    await arrived(listen, TOOLS_CHANGED);
    await quiesce();

    expect(count(own, TOOLS_CHANGED)).toBe(1);
    expect(count(other, TOOLS_CHANGED)).toBe(1);
    expect(count(listen, TOOLS_CHANGED)).toBe(1);
  });

  test('a broadcast of something that is not a notification, or over 1 MiB, stays on its process', async () => {
    const [n1, n2] = await deploy(2);
    const other = await legacy(n2!);
    n1!.server.server.broadcast('custom/method', { a: 1 });
    n1!.server.server.broadcast('notifications/custom', { blob: 'x'.repeat(MAX_FANOUT_MESSAGE_BYTES) });
    await until(() => n1!.logger.errors.length === 1, 'the oversize broadcast is logged');
    await quiesce();
    expect(n1!.logger.errors[0]!.message).toMatch(/notifications\/custom is over 1048576 bytes/);
    expect(n1!.logger.debugs).toEqual([expect.stringMatching(/custom\/method is not a notification/)]);
    expect(n1!.published.filter((text) => text.includes('custom'))).toEqual([]);
    expect(count(other, 'notifications/custom')).toBe(0);
  });
});

describe('malformed fan-out messages', () => {
  const big = JSON.stringify({
    t: 'notify',
    method: UPDATED,
    params: { uri: WATCHED, pad: 'é'.repeat(600_000) },
  });
  const bad: [string, unknown][] = [
    ['not JSON', '{"t":"notify",'],
    ['not an object', '[1,2]'],
    ['not an object', 'null'],
    ['unknown t', '{"t":"open","x":"1","m":"POST"}'],
    ['unknown t', JSON.stringify({ method: UPDATED, params: { uri: WATCHED } })],
    ['not a notification', JSON.stringify({ t: 'notify', method: 'tools/call', params: {} })],
    ['not a notification', JSON.stringify({ t: 'notify', params: { uri: WATCHED } })],
    ['params not an object', JSON.stringify({ t: 'notify', method: UPDATED, params: [WATCHED] })],
    ['resources/updated without a uri', JSON.stringify({ t: 'notify', method: UPDATED, params: { uri: 7 } })],
    ['over 1048576 bytes', big],
    ['not text', 42],
  ];

  test('each is ignored with one debug line; a valid one after them is delivered once', async () => {
    const [, n2] = await deploy(2);
    const other = await legacy(n2!);
    // UTF-8 over the bound although fewer characters than bytes: counted in bytes.
    expect(big.length).toBeLessThan(MAX_FANOUT_MESSAGE_BYTES);
    for (const [, message] of bad) n2!.membership.receive(message as string);
    expect(n2!.logger.debugs).toEqual(bad.map(([reason]) => `fan-out: message ignored (${reason})`));
    n2!.membership.receive(JSON.stringify({ t: 'notify', method: UPDATED, params: { uri: WATCHED } }));
    await quiesce();
    expect(count(other, UPDATED, WATCHED)).toBe(1);
    expect(n2!.logger.errors).toEqual([]);
  });

  test('garbage broadcast by a foreign relay node is ignored; a throwing logger breaks nothing', async () => {
    const server = makeServer('solo');
    const throwing = {
      debug: () => {
        throw new Error('logger down');
      },
      error: () => {
        throw new Error('logger down');
      },
    };
    const node = await joinHub(server, hub(), throwing as unknown as MemoryLogger);
    const own = await legacy(node);
    const rogue = hub().node('rogue');
    await rogue.broadcast('{"t":"notify","method":"notifications/resources/updated","params":{}}');
    await rogue.broadcast('\u0000garbage');
    await rogue.broadcast(JSON.stringify({ t: 'notify', method: UPDATED, params: { uri: WATCHED } }));
    await arrived(own, UPDATED, WATCHED);
    await node.server.notifyResourceUpdated('test://after'); // local: orders after anything pending
    expect(count(own, UPDATED, WATCHED)).toBe(1);
    await node.relay.close();
  });
});

describe('when publishing fails', () => {
  test('local delivery still happens, the failure is logged, nothing is unhandled; it recovers', async () => {
    const [n1, n2] = await deploy(2);
    const own = await legacy(n1!);
    const other = await legacy(n2!);
    hub().down = true;
    await n1!.server.notifyResourceUpdated(WATCHED); // resolves: the failure is not the caller's
    expect(count(own, UPDATED, WATCHED)).toBe(1);
    n1!.server.server.broadcast(TOOLS_CHANGED);
    expect(count(own, TOOLS_CHANGED)).toBe(1);
    await until(() => n1!.logger.errors.length === 2, 'both failures logged');
    expect(n1!.logger.errors.map((e) => e.message)).toEqual([
      `fan-out: publishing ${UPDATED} failed; delivered on this process only`,
      `fan-out: publishing ${TOOLS_CHANGED} failed; delivered on this process only`,
    ]);
    for (const { detail } of n1!.logger.errors) expect(detail).toBeInstanceOf(StoreUnavailableError);

    hub().down = false;
    await quiesce();
    expect(count(other, UPDATED, WATCHED)).toBe(0); // raised while down: lost, as documented
    await n1!.server.notifyResourceUpdated(WATCHED);
    await arrived(other, UPDATED, WATCHED);
    await quiesce();
    expect(count(other, UPDATED, WATCHED)).toBe(1);
    expect(count(own, UPDATED, WATCHED)).toBe(2);
  });
});

describe('leave()', () => {
  test('stops both directions: nothing published, nothing received; idempotent', async () => {
    const [n1, n2] = await deploy(2);
    const own = await legacy(n1!);
    const other = await legacy(n2!);
    n2!.membership.leave();
    n2!.membership.leave();

    await n1!.server.notifyResourceUpdated(WATCHED);
    await until(() => n2!.logger.debugs.length === 1, 'the message reached server 2 and was ignored');
    expect(n2!.logger.debugs).toEqual(['fan-out: message after leave() ignored']);
    expect(count(other, UPDATED, WATCHED)).toBe(0);

    const before = n2!.published.length;
    await n2!.server.notifyResourceUpdated(WATCHED);
    n2!.server.server.broadcast(TOOLS_CHANGED);
    expect(n2!.published.length).toBe(before);
    expect(count(other, UPDATED, WATCHED)).toBe(1); // its own, locally
    expect(count(own, UPDATED, WATCHED)).toBe(1);
  });

  test('a server joined through two nodes counts once; the standby takes over when the first leaves', async () => {
    const one = makeServer('one');
    const two = makeServer('two');
    const first = await joinHub(one, hub());
    const standby = await joinHub(one, hub());
    const peer = await joinHub(two, hub());
    const onOne = await legacy(first, [WATCHED, 'test://after']);
    const onTwo = await legacy(peer, [WATCHED, 'test://after']);

    await two.notifyResourceUpdated(WATCHED);
    await two.notifyResourceUpdated('test://after'); // both of one's nodes got WATCHED before this
    await arrived(onOne, UPDATED, 'test://after');
    expect(count(onOne, UPDATED, WATCHED)).toBe(1);
    expect(standby.logger.debugs).toEqual([
      'fan-out: message on a standby membership ignored',
      'fan-out: message on a standby membership ignored',
    ]);

    await one.notifyResourceUpdated(WATCHED);
    await arrived(onTwo, UPDATED, WATCHED, 2);
    expect(publishedFor(first.published, WATCHED)).toHaveLength(1);
    expect(publishedFor(standby.published, WATCHED)).toHaveLength(0);

    first.membership.leave();
    await one.notifyResourceUpdated(WATCHED);
    await arrived(onTwo, UPDATED, WATCHED, 3);
    expect(publishedFor(standby.published, WATCHED)).toHaveLength(1);
    await two.notifyResourceUpdated('test://after');
    await arrived(onOne, UPDATED, 'test://after', 2);
    expect(count(onOne, UPDATED, WATCHED)).toBe(3); // 1 from two, 2 of its own

    for (const node of [first, standby, peer]) {
      node.membership.leave();
      await node.relay.close();
    }
  });
});
