/**
 * Issue 12: "the fixture runs on Redis when REDIS_URL is set: `PORT=3001 REDIS_URL=... npm run
 * --silent fixture:http` on several ports gives processes that serve the same sessions".
 * Two dist/examples/fixture-http.js processes on one throwaway Redis behind the round-robin proxy;
 * Keel's McpClient (legacy era) runs the fixture's elicitation tool with its requests alternating
 * between them. Needs `npm run build`.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { McpClient } from 'keel-mcp/client';
import { StreamableHttpClientTransport } from 'keel-mcp/http';
import { useProcessGuard, within } from '../helpers/guard.js';
import { redisAvailable, startRedis, type TestRedis } from '../helpers/redis.js';
import { connectTestClient, type ConnectedClient } from '../helpers/redis-client.js';
import { startRoundRobinProxy, type RoundRobinProxy } from '../helpers/round-robin-proxy.js';
import { FIXTURE_HTTP } from './support/http-child.js';
import { spawnScaleOutServer, type ScaleOutProcess } from './support/scale-out-processes.js';

useProcessGuard();

let redis: TestRedis | undefined;
let keys: ConnectedClient | undefined;
let procs: ScaleOutProcess[] = [];
let proxy: RoundRobinProxy;
let client: McpClient | undefined;

describe.skipIf(!redisAvailable())('the HTTP fixture with REDIS_URL: two processes serve one session', () => {
  beforeAll(async () => {
    redis = await startRedis();
    keys = await connectTestClient(redis);
    procs = await Promise.all([0, 1].map(() => spawnScaleOutServer({ REDIS_URL: redis!.url }, FIXTURE_HTTP)));
    proxy = await startRoundRobinProxy(procs.map((proc) => proc.port));
  }, 60_000);

  afterEach(async () => {
    if (client) await within(client.close(), 5_000, 'client close').catch(() => {});
    client = undefined;
    proxy.closeIdle();
  });

  afterAll(async () => {
    await proxy?.close();
    await Promise.all(procs.map((proc) => proc.stop(5_000)));
    await keys?.close();
    await redis?.stop();
  }, 60_000);

  it('a session opened on one process is served by both; its record on Redis names the owner', async () => {
    proxy.next = 0;
    const transport = new StreamableHttpClientTransport(proxy.url('/mcp'), { openGetStream: false });
    client = await within(
      McpClient.connect(transport, {
        info: { name: 'scale-out-fixture', version: '1.0.0' },
        era: 'legacy',
        elicitation: {
          form: () =>
            Promise.resolve({ action: 'accept', content: { username: 'ada', email: 'ada@example.com' } }),
        },
      }),
      10_000,
      'connect',
    );
    const sessionId = transport.sessionId!;

    // The record is on Redis, under the fixture's namespace, with a TTL.
    const recordKey = `keel:fixture:sess:{${sessionId}}`;
    const ttls = await keys!.keyTtls();
    expect(ttls.get(recordKey)).toBeGreaterThan(0);
    expect(JSON.parse((await keys!.client.hGet(recordKey, 'data'))!)).toMatchObject({
      owner: expect.any(String),
    });

    proxy.next = 1;
    const result = await within(
      client.callTool('test_elicitation', { message: 'Who are you?' }),
      10_000,
      'call',
    );
    expect(result.content).toEqual([
      {
        type: 'text',
        text: 'User response: action=accept, content={"username":"ada","email":"ada@example.com"}',
      },
    ]);
    proxy.next = 0;
    expect((await within(client.listTools(), 5_000, 'list')).tools.length).toBeGreaterThan(10);

    const session = proxy.log.filter((entry) => entry.sessionId === sessionId);
    const call = session.find((entry) => entry.rpcMethods.includes('tools/call'))!;
    const answer = session.find(
      (entry) => entry.seq > call.seq && entry.method === 'POST' && !entry.rpcMethods.length,
    )!;
    const list = session.find((entry) => entry.rpcMethods.includes('tools/list'))!;
    // Consecutive requests of the one session went to different processes.
    expect([call.upstream, answer.upstream, list.upstream]).toEqual([1, 0, 0]);
    expect(proxy.log[0]).toMatchObject({ upstream: 0, rpcMethods: ['initialize'] });
    expect(new Set(session.map((entry) => entry.upstream))).toEqual(new Set([0, 1]));
  });
});
