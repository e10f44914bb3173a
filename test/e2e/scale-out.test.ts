/**
 * Issue 12, done-when 2 and 3: three Keel HTTP processes (dist/examples/scale-out-server.js) on
 * one throwaway Redis, behind a round-robin proxy with no sticky sessions, and Keel's McpClient
 * (legacy era, 2025-11-25, sessions) through the proxy. Each scenario lines its requests up on
 * chosen processes (`proxy.next`) and then proves from the proxy's log that consecutive requests
 * of one session went to different processes. Needs `npm run build` (the processes run dist/).
 */
import { request } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { McpClient } from 'keel-mcp/client';
import { ConnectionClosedError, ErrorCode, McpError, type LoggingMessageParams } from 'keel-mcp/core';
import { HttpTransportError, StreamableHttpClientTransport } from 'keel-mcp/http';
import { useProcessGuard, within } from '../helpers/guard.js';
import { redisAvailable, startRedis, type TestRedis } from '../helpers/redis.js';
import { connectTestClient, type ConnectedClient } from '../helpers/redis-client.js';
import {
  startRoundRobinProxy,
  type ProxiedRequest,
  type RoundRobinProxy,
} from '../helpers/round-robin-proxy.js';
import { settle } from './support/probe-http.js';
import { spawnScaleOutServer, type ScaleOutProcess } from './support/scale-out-processes.js';

useProcessGuard();

const PROTOCOL = '2025-11-25';
const WATCHED = 'test://watched';

let redis: TestRedis | undefined;
let keys: ConnectedClient | undefined;
let procs: ScaleOutProcess[] = [];
let proxy: RoundRobinProxy;
const clients: McpClient[] = [];

interface Connected {
  client: McpClient;
  transport: StreamableHttpClientTransport;
  sessionId: string;
  logs: LoggingMessageParams[];
  /** `notifications/resources/updated` URIs, in order. */
  updates: string[];
  /** Resolves once `updates` has `count` entries (bounded). */
  updated(count: number): Promise<void>;
}

type FormAnswer = { action: 'accept'; content: { answer: string } };

/** Connect through the proxy with the `initialize` on process `owner` (so it owns the session). */
async function connect(
  owner: number,
  options: { getStream?: boolean; answer?: (message: string) => Promise<FormAnswer> } = {},
): Promise<Connected> {
  proxy.next = owner;
  const transport = new StreamableHttpClientTransport(proxy.url('/mcp'), {
    openGetStream: options.getStream ?? false,
    reconnect: { maxAttempts: 2, initialDelayMs: 100 },
  });
  const logs: LoggingMessageParams[] = [];
  const updates: string[] = [];
  const watchers = new Set<() => void>();
  const client = await within(
    McpClient.connect(transport, {
      info: { name: 'scale-out-e2e', version: '1.0.0' },
      era: 'legacy',
      protocolVersion: PROTOCOL,
      elicitation: {
        form: ({ message }) =>
          options.answer
            ? options.answer(message)
            : Promise.resolve({ action: 'accept', content: { answer: message } }),
      },
    }),
    10_000,
    'connect through the proxy',
  );
  clients.push(client);
  client.on('log', (message) => void logs.push(message));
  client.on('resourceUpdated', ({ uri }) => {
    updates.push(uri);
    for (const watcher of [...watchers]) watcher();
  });
  const init = proxy.log.findLast((entry) => entry.rpcMethods.includes('initialize'));
  expect(init?.upstream).toBe(owner);
  const updated = (count: number): Promise<void> =>
    within(
      new Promise<void>((resolve) => {
        const check = (): void => {
          if (updates.length < count) return;
          watchers.delete(check);
          resolve();
        };
        watchers.add(check);
        check();
      }),
      10_000,
      `${count} resource update(s)`,
    );
  return { client, transport, sessionId: transport.sessionId!, logs, updates, updated };
}

/** The one text block of a tool result, parsed. */
function parsed(result: { content: unknown[] }): Record<string, unknown> {
  const block = result.content[0] as { type: string; text: string };
  return JSON.parse(block.text) as Record<string, unknown>;
}

/** A raw `tools/list` straight to one process (not through the proxy) for `sessionId`: its status. */
function rawPost(proc: ScaleOutProcess, sessionId: string): Promise<number> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
  return within(
    new Promise<number>((resolve, reject) => {
      // No keep-alive: the socket ends with the exchange, so nothing outlives the test.
      const req = request(
        proc.url,
        {
          method: 'POST',
          agent: false,
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-protocol-version': PROTOCOL,
            'mcp-session-id': sessionId,
            connection: 'close',
          },
        },
        // Resolved once the socket is closed, not at the body's end (a socket still closing
        // would count as left open).
        (res) => {
          res.resume();
          res.socket.once('close', () => resolve(res.statusCode ?? 0));
        },
      );
      req.once('error', reject);
      req.end(body);
    }),
    5_000,
    'raw POST',
  );
}

const ofSession =
  (sessionId: string) =>
  (entry: ProxiedRequest): boolean =>
    entry.sessionId === sessionId;

describe.skipIf(!redisAvailable())('scale-out: three processes, one Redis, a round-robin proxy', () => {
  beforeAll(async () => {
    redis = await startRedis();
    keys = await connectTestClient(redis);
    const env = { REDIS_URL: redis.url, KEEL_NAMESPACE: 'e2e' };
    procs = await Promise.all([0, 1, 2].map(() => spawnScaleOutServer(env)));
    proxy = await startRoundRobinProxy(procs.map((proc) => proc.port));
  }, 60_000);

  // Each test's clients end with it (the process guard checks for open sockets after each test).
  afterEach(async () => {
    for (const client of clients.splice(0))
      await within(client.close(), 5_000, 'client close').catch(() => {});
    // undici opens spare connections it may never use; they would outlive the test.
    proxy.closeIdle();
  });

  afterAll(async () => {
    await proxy?.close();
    await Promise.all(procs.map((proc) => proc.stop(5_000)));
    await keys?.close();
    await redis?.stop();
  }, 60_000);

  it('a tool on A that elicits gets the answer POSTed to B', async () => {
    const a = await connect(0);
    proxy.next = 1;
    const result = await within(a.client.callTool('ask', { question: 'Favourite colour?' }), 10_000, 'ask');
    expect(parsed(result)).toEqual({ action: 'accept', answer: 'Favourite colour?', pid: procs[0]!.pid });

    const session = proxy.log.filter(ofSession(a.sessionId));
    const call = session.find((entry) => entry.rpcMethods.includes('tools/call'))!;
    // The client's answer: the one POST of the session after the call that carries no method.
    const answers = session.filter(
      (entry) => entry.seq > call.seq && entry.method === 'POST' && !entry.rpcMethods.length,
    );
    expect(answers).toHaveLength(1);
    expect(call.upstream).toBe(1);
    expect(answers[0]!.upstream).toBe(2);
  });

  it('a GET stream on C receives notifications raised on A (fan-out), for a session owned by neither', async () => {
    // Watcher: owned by process 0, its GET stream served by process 2, subscribed to WATCHED.
    proxy.next = 0;
    const watcher = await connect(0, { getStream: true });
    const get = await proxy.waitFor(
      (entry) => entry.method === 'GET' && entry.sessionId === watcher.sessionId,
    );
    expect(get.upstream).toBe(2);
    proxy.next = 1;
    await within(watcher.client.subscribeResource(WATCHED), 5_000, 'subscribe');

    // Raiser: owned by process 1; its `raise` lands on process 2 and is relayed to 1, where it runs.
    const raiser = await connect(1);
    proxy.next = 2;
    const first = await within(raiser.client.callTool('raise', { note: 'one' }), 10_000, 'raise');
    expect(parsed(first)).toEqual({ raised: WATCHED, pid: procs[1]!.pid });
    const raise = proxy.log.findLast((entry) => entry.rpcMethods.includes('tools/call'))!;
    expect(raise).toMatchObject({ upstream: 2, sessionId: raiser.sessionId });
    await watcher.updated(1);
    // The raiser's own log message came back on its relayed POST stream.
    expect(raiser.logs.map((log) => log.data)).toEqual([`raised by ${procs[1]!.pid}: one`]);

    proxy.next = 0;
    await within(raiser.client.callTool('raise', { note: 'two' }), 10_000, 'raise again');
    await watcher.updated(2);
    // Exactly one notification per raise (a duplicate of the first would have come before the second).
    expect(watcher.updates).toEqual([WATCHED, WATCHED]);
    // The only stream the watcher had open was the GET on process 2 (its owner is process 0).
    expect(
      proxy.log.filter((entry) => entry.sessionId === watcher.sessionId && entry.method === 'GET'),
    ).toHaveLength(1);
  });

  it('a stream resumed with Last-Event-ID on another process replays what the client missed', async () => {
    const a = await connect(0);
    proxy.next = 1;
    const result = await within(a.client.callTool('hop', { note: 'x' }), 10_000, 'hop');
    expect(parsed(result)).toEqual({ note: 'x', pid: procs[0]!.pid });
    expect(a.logs.map((log) => log.data)).toEqual(['before the break: x', 'after the break: x']);

    const call = proxy.log.find(
      (entry) => entry.sessionId === a.sessionId && entry.rpcMethods.includes('tools/call'),
    )!;
    const resumes = proxy.log.filter(
      (entry) => entry.sessionId === a.sessionId && entry.lastEventId !== undefined,
    );
    expect(call.upstream).toBe(1);
    expect(resumes).toHaveLength(1);
    expect(resumes[0]).toMatchObject({ method: 'GET', upstream: 2, status: 200 });
  });

  it('DELETE on one process ends the session everywhere: the handler on the owner is aborted, every process says 404', async () => {
    const a = await connect(0);
    proxy.next = 1;
    const call = settle(a.client.callTool('slow', { tag: 'deleted' }), 10_000);
    await procs[0]!.waitForEvent((event) => event.event === 'slow-started' && event.tag === 'deleted');

    proxy.next = 2;
    await within(a.client.close(), 5_000, 'client close (DELETE)');
    const deleted = proxy.log.filter((entry) => entry.sessionId === a.sessionId && entry.method === 'DELETE');
    expect(deleted).toHaveLength(1);
    expect(deleted[0]).toMatchObject({ upstream: 2, status: 200 });

    const aborted = await procs[0]!.waitForEvent(
      (event) => event.event === 'slow-aborted' && event.tag === 'deleted',
    );
    expect(aborted.pid).toBe(procs[0]!.pid);
    expect(await call).toBeInstanceOf(Error);
    for (const proc of procs) expect(await rawPost(proc, a.sessionId)).toBe(404);
    // It ran only on its owner.
    expect(procs[1]!.events.filter((event) => event.tag === 'deleted')).toEqual([]);
    expect(procs[2]!.events.filter((event) => event.tag === 'deleted')).toEqual([]);
  });

  it('a process killed mid-call fails only its own in-flight calls; a session on another process keeps working', async () => {
    // Victim: owned by process 2. Survivor: owned by process 0, mid-call (waiting on its user) during the kill.
    const victim = await connect(2);
    let release!: (answer: FormAnswer) => void;
    const released = new Promise<FormAnswer>((resolve) => (release = resolve));
    let asked!: () => void;
    const wasAsked = new Promise<void>((resolve) => (asked = resolve));
    const survivor = await connect(0, {
      answer: () => {
        asked();
        return released;
      },
    });

    proxy.next = 1;
    const doomed = settle(victim.client.callTool('slow', { tag: 'doomed' }), 20_000);
    await procs[2]!.waitForEvent((event) => event.event === 'slow-started' && event.tag === 'doomed');
    // A second call of the victim goes straight to its owner.
    proxy.next = 2;
    const direct = settle(victim.client.callTool('slow', { tag: 'doomed-direct' }), 20_000);
    await procs[2]!.waitForEvent((event) => event.event === 'slow-started' && event.tag === 'doomed-direct');
    proxy.next = 1;
    const surviving = within(
      survivor.client.callTool('ask', { question: 'still there?' }),
      20_000,
      'survivor',
    );
    await within(wasAsked, 10_000, 'survivor asked');

    await procs[2]!.kill();
    proxy.remove(2); // the balancer's health check takes the dead process out

    // The victim's call went to process 1 and waited there on the dead owner: a JSON-RPC -32000.
    const error = await doomed;
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(ErrorCode.ConnectionClosed);
    expect((error as McpError).message).toMatch(/process/i);

    // The call that went straight to the dead owner: the balancer answers 502, which Keel's client
    // reports as it does for any server lost mid-call (ConnectionClosedError, cause HttpTransportError).
    const directError = await direct;
    expect(directError).toBeInstanceOf(ConnectionClosedError);
    expect((directError as ConnectionClosedError).cause).toBeInstanceOf(HttpTransportError);
    expect(((directError as ConnectionClosedError).cause as HttpTransportError).status).toBe(502);
    release({ action: 'accept', content: { answer: 'yes' } });
    expect(parsed(await surviving)).toEqual({ action: 'accept', answer: 'yes', pid: procs[0]!.pid });
    // Further calls land on both live processes and run on the survivor's owner.
    for (const next of [0, 1]) {
      proxy.next = next;
      const whoami = parsed(await within(survivor.client.callTool('whoami', {}), 5_000, 'whoami'));
      expect(whoami.pid).toBe(procs[0]!.pid);
      const landed = proxy.log.findLast(
        (entry) => entry.sessionId === survivor.sessionId && entry.rpcMethods.includes('tools/call'),
      );
      expect(landed?.upstream).toBe(next);
    }
  }, 40_000);

  it('after the tests every keel:* key in Redis has a TTL, and a graceful stop leaves none without one', async () => {
    const live = await keys!.keyTtls();
    expect(live.size).toBeGreaterThan(0);
    expect([...live].filter(([, ttl]) => ttl < 0)).toEqual([]);
    await Promise.all(procs.map((proc) => proc.stop(5_000)));
    expect(procs.slice(0, 2).map((proc) => proc.child.exitCode)).toEqual([0, 0]);
    const left = await keys!.keyTtls();
    expect([...left].filter(([, ttl]) => ttl < 0)).toEqual([]);
  }, 30_000);
});
