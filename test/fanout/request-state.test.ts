/**
 * Issue 12: 2026-07-28 needs nothing shared between processes but the `requestState` keys. Two
 * HTTP processes (two McpServers, serveHttp on 127.0.0.1) behind a test balancer that sends a
 * tool call's first round to one and its retry to the other: with the same keys the retry
 * completes there; with other keys it is refused with `-32602` and the state's reason; during a
 * key rotation done as docs/modern-era.md says (new key verify-only everywhere first) both mixes
 * of old and new signers accept each other's states.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { serveHttp, type HttpServing } from 'keel-mcp/node';
import { McpClient } from 'keel-mcp/client';
import { ErrorCode, McpError } from 'keel-mcp/core';
import { McpServer, type RequestStateKey } from 'keel-mcp/server';
import { StreamableHttpClientTransport } from 'keel-mcp/http';
import { useProcessGuard, within } from '../helpers/guard.js';

useProcessGuard();

const OLD: RequestStateKey = { id: '2026-07', secret: 'old-secret-old-secret-old-secret-0' };
const NEW: RequestStateKey = { id: '2026-08', secret: 'new-secret-new-secret-new-secret-1' };
const NAME_SCHEMA = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } as const;

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await within(close(), 5_000, 'cleanup');
});

interface Process {
  url: string;
  /** Names of the processes the `ask` handler ran on, in order (shared by the deployment). */
  runs: string[];
}

/** One "process": an McpServer with the `ask` tool (one elicitation), served over HTTP. */
async function start(name: string, keys: readonly RequestStateKey[], runs: string[]): Promise<Process> {
  const server = new McpServer(
    { name: 'mrtr-deployment', version: '1' },
    { requestState: { keys }, onerror: undefined },
  );
  server.tool('ask', { description: 'Asks for a name' }, async (_args, ctx) => {
    runs.push(name);
    const answer = await ctx.elicit({ message: 'Your name?', schema: NAME_SCHEMA });
    return answer.action === 'accept' ? `${String(answer.content.name)}, answered on ${name}` : answer.action;
  });
  const serving: HttpServing = await serveHttp(server, {
    port: 0,
    host: '127.0.0.1',
    keepAliveMs: 0,
    sessions: false,
  });
  closers.push(() => serving.close({ deadlineMs: 2_000 }));
  return { url: serving.url, runs };
}

/**
 * Two processes and a client whose `tools/call` POSTs alternate between them (first to `a`, the
 * retry to `b`, ...): a load balancer without affinity.
 */
async function deployment(keysA: readonly RequestStateKey[], keysB: readonly RequestStateKey[]) {
  const runs: string[] = [];
  const a = await start('A', keysA, runs);
  const b = await start('B', keysB, runs);
  let calls = 0;
  const balanced: typeof fetch = (input, init) => {
    const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as { method?: string }) : undefined;
    const target = body?.method === 'tools/call' ? [a, b][calls++ % 2]! : a;
    return fetch(target.url, init);
  };
  const client = new McpClient(
    { name: 'balanced', version: '1' },
    { era: 'modern', elicitation: { form: () => ({ action: 'accept', content: { name: 'Ada' } }) } },
  );
  await within(
    client.connect(new StreamableHttpClientTransport(a.url, { fetch: balanced })),
    10_000,
    'connect',
  );
  closers.push(() => client.close());
  const ask = async (): Promise<string> => {
    const result = await within(client.callTool('ask'), 10_000, 'tools/call');
    return (result.content[0] as { text: string }).text;
  };
  return { client, runs, ask };
}

async function refusal(call: Promise<unknown>): Promise<McpError> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(McpError);
  return error as McpError;
}

describe('requestState across processes', () => {
  test('same keys: a round started on A is completed on B', async () => {
    const { ask, runs } = await deployment([NEW, OLD], [NEW, OLD]);
    expect(await ask()).toBe('Ada, answered on B');
    expect(runs).toEqual(['A', 'B']);
  });

  test('other keys: the retry on B is refused with -32602 unknown-key', async () => {
    const { ask, runs } = await deployment([NEW], [OLD]);
    const error = await refusal(ask());
    expect(error.code).toBe(ErrorCode.InvalidParams);
    expect(error.data).toMatchObject({ reason: 'unknown-key' });
    expect(runs).toEqual(['A']); // refused before the handler runs on B
  });

  test('same key id, another secret: refused with -32602 signature', async () => {
    const { ask } = await deployment([NEW], [{ id: NEW.id, secret: 'another-secret-another-secret-000' }]);
    const error = await refusal(ask());
    expect(error.code).toBe(ErrorCode.InvalidParams);
    expect(error.data).toMatchObject({ reason: 'signature' });
  });

  test('rotation as documented: while some processes sign with the new key and some with the old, each accepts the other', async () => {
    // Step 1 done everywhere (the new key verifies), step 2 done on A only (A signs with it).
    const { ask, runs } = await deployment([NEW, OLD], [OLD, NEW]);
    expect(await ask()).toBe('Ada, answered on B'); // signed by A with NEW, verified by B
    expect(await ask()).toBe('Ada, answered on B'); // started on A again: the balancer alternates per POST
    expect(runs).toEqual(['A', 'B', 'A', 'B']);
    const reversed = await deployment([OLD, NEW], [NEW, OLD]);
    expect(await reversed.ask()).toBe('Ada, answered on B'); // signed by A with OLD, verified by B
  });

  test('rotation skipping step 1 (new key first on A, B not told yet) breaks retries on B', async () => {
    const { ask } = await deployment([NEW, OLD], [OLD]);
    const error = await refusal(ask());
    expect(error.data).toMatchObject({ reason: 'unknown-key' });
  });
});
