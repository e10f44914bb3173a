import { afterEach, describe, expect, test } from 'vitest';
import { McpServer } from 'keel-mcp/server';
import { useProcessGuard } from '../helpers/guard.js';
import { connect, type Connected } from './harness.js';

useProcessGuard();
let open: Connected | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

function server(): McpServer {
  const s = new McpServer({ name: 's', version: '1' });
  s.tool('chatty', { description: 'Logs at every level' }, async (_args, ctx) => {
    for (const level of ['debug', 'info', 'warning', 'error'] as const)
      await ctx.log(level, { level }, 'chatty');
    return 'done';
  });
  s.tool('steps', { description: 'Reports progress' }, async (_args, ctx) => {
    await ctx.progress(1, 3, 'one');
    await ctx.progress(2, 3);
    await ctx.progress(3);
    return 'done';
  });
  return s;
}

const levels = (c: Connected) =>
  c.notifications.filter((n) => n.method === 'notifications/message').map((n) => n.params.level);

describe('logging', () => {
  test('without setLevel every message is sent, on the request', async () => {
    open = await connect(server());
    await open.client.request('tools/call', { name: 'chatty' });
    expect(levels(open)).toEqual(['debug', 'info', 'warning', 'error']);
    expect(open.notifications[0]!.params).toEqual({
      level: 'debug',
      logger: 'chatty',
      data: { level: 'debug' },
    });
    // Routed with the originating request (the HTTP transport puts them on its POST stream).
    const call = open.routes.filter((r) => 'result' in r.message).at(-1)!;
    const routed = open.routes.filter(
      (r) => 'method' in r.message && r.message.method === 'notifications/message',
    );
    expect(routed.map((r) => r.relatedRequestId)).toEqual([1, 1, 1, 1].map(() => call.relatedRequestId));
    expect(call.relatedRequestId).toBe((call.message as { id: unknown }).id);
  });

  test('logging/setLevel filters per session; an invalid level is -32602', async () => {
    const s = server();
    open = await connect(s);
    const other = await connect(s);
    try {
      expect(await open.client.request('logging/setLevel', { level: 'warning' })).toEqual({});
      await open.client.request('tools/call', { name: 'chatty' });
      await other.client.request('tools/call', { name: 'chatty' });
      expect(levels(open)).toEqual(['warning', 'error']);
      expect(levels(other)).toHaveLength(4);
      await expect(open.client.request('logging/setLevel', { level: 'loud' })).rejects.toMatchObject({
        code: -32602,
      });
      await s.log('info', 'broadcast');
      await s.log('error', 'broadcast');
      await open.client.request('ping', {});
      await other.client.request('ping', {});
      expect(levels(open)).toEqual(['warning', 'error', 'error']);
      expect(levels(other)).toHaveLength(6);
    } finally {
      await other.close();
    }
  });

  test('defaultLogLevel applies until the client sets a level', async () => {
    const s = new McpServer({ name: 's', version: '1' }, { defaultLogLevel: 'error' });
    s.tool('chatty', { description: 'Logs' }, async (_a, ctx) => {
      await ctx.log('info', 'hidden');
      await ctx.log('error', 'shown');
      return '';
    });
    open = await connect(s);
    await open.client.request('tools/call', { name: 'chatty' });
    expect(levels(open)).toEqual(['error']);
  });
});

describe('progress', () => {
  test("progress goes to the caller's token; none without a token", async () => {
    open = await connect(server());
    const seen: unknown[] = [];
    await open.client.request('tools/call', { name: 'steps' }, { onprogress: (p) => seen.push(p) });
    expect(seen).toEqual([
      { progress: 1, total: 3, message: 'one' },
      { progress: 2, total: 3 },
      { progress: 3 },
    ]);
    const before = open.serverSide.sent.length;
    await open.client.request('tools/call', { name: 'steps' });
    const after = open.serverSide.sent.slice(before);
    expect(after.filter((m) => 'method' in m && m.method === 'notifications/progress')).toEqual([]);
  });

  test('an explicit progress token in _meta is echoed', async () => {
    open = await connect(server());
    await open.client.request('tools/call', { name: 'steps', _meta: { progressToken: 'tok' } });
    const tokens = open.serverSide.sent
      .filter((m) => 'method' in m && m.method === 'notifications/progress')
      .map((m) => (m as unknown as { params: { progressToken: unknown } }).params.progressToken);
    expect(tokens).toEqual(['tok', 'tok', 'tok']);
  });
});
