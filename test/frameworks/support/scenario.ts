/**
 * The one scenario every framework adapter passes, over a REAL server of that framework on
 * 127.0.0.1:0, driven by Keel's McpClient over Streamable HTTP: initialize, list, a tool call with
 * progress (SSE), an elicitation round, a client disconnect that aborts the handler, and the
 * 2026-07-28 era. The test file states how its framework mounts the handler (`Mount`).
 */
import { afterEach, expect, test } from 'vitest';
import { McpClient, type McpClientOptions, clearEraCache } from 'keel-mcp/client';
import { CancelledByPeerError, RequestAbortedError } from 'keel-mcp/core';
import { McpServer } from 'keel-mcp/server';
import { StreamableHttpClientTransport, createHttpHandler, type HttpHandler } from 'keel-mcp/http';
import { within } from '../../helpers/guard.js';

/** A framework app listening on 127.0.0.1:0 with `handler` mounted; `url` is the MCP endpoint. */
export interface Mounted {
  url: string;
  close(): Promise<void>;
}
/**
 * Mount `handler` on a new app of the framework, passing {@link AUTH} as `authInfo` the way that
 * framework's auth middleware would.
 */
export type Mount = (handler: HttpHandler) => Promise<Mounted>;

/** What each framework's "auth middleware" sets; tool handlers see it as `ctx.info.authInfo`. */
export const AUTH = Object.freeze({ user: 'ada' });

const NAME_SCHEMA = {
  type: 'object',
  properties: { name: { type: 'string' } },
  required: ['name'],
} as const;

/** What the `hold` handler saw: it started, and the reason its signal aborted with. */
interface Held {
  started: Promise<void>;
  aborted: Promise<unknown>;
}

function keelServer(): { server: McpServer; held: () => Held } {
  const server = new McpServer({ name: 'framework-test', version: '1.0.0' });
  let current: { started: () => void; aborted: (reason: unknown) => void; held: Held } | undefined;
  const arm = (): Held => {
    let started!: () => void;
    let aborted!: (reason: unknown) => void;
    const held: Held = {
      started: new Promise<void>((resolve) => (started = resolve)),
      aborted: new Promise((resolve) => (aborted = resolve)),
    };
    current = { started, aborted, held };
    return held;
  };
  server.tool('count', { description: 'reports progress 1..3, then answers' }, async (_args, ctx) => {
    for (let step = 1; step <= 3; step++) await ctx.progress(step, 3, `step ${step}`);
    return 'counted 3';
  });
  server.tool('ask', { description: 'asks the client for a name' }, async (_args, ctx) => {
    const answer = await ctx.elicit({ message: 'Your name?', schema: NAME_SCHEMA });
    return answer.action === 'accept' ? `hello ${String(answer.content.name)}` : answer.action;
  });
  server.tool('whoami', { description: 'the authInfo the host passed' }, (_args, ctx) =>
    JSON.stringify(ctx.info?.authInfo ?? null),
  );
  server.tool('hold', { description: 'waits until its signal aborts' }, async (_args, ctx) => {
    const { started, aborted } = current!;
    ctx.signal.addEventListener('abort', () => aborted(ctx.signal.reason), { once: true });
    started();
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
    return 'never';
  });
  return { server, held: () => current?.held ?? arm() };
}

function text(result: { content: unknown[] }): string {
  return (result.content[0] as { text: string }).text;
}

/** Register the scenario's tests for one framework. Call `useProcessGuard()` in the test file. */
export function frameworkScenario(mount: Mount): void {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await within(cleanup(), 5_000, 'cleanup');
    clearEraCache();
  });

  async function start(era: 'legacy' | 'modern'): Promise<{
    client: McpClient;
    held: () => Held;
    contentTypes: string[];
    elicited: unknown[];
  }> {
    const { server, held } = keelServer();
    const handler = createHttpHandler(server, { keepAliveMs: 0 });
    const app = await mount(handler);
    cleanups.push(() => app.close());
    // Before the app: ends sessions and open streams, so the framework's close has nothing to wait for.
    cleanups.push(() => handler.close({ deadlineMs: 2_000 }));
    const elicited: unknown[] = [];
    const options: McpClientOptions = {
      era,
      elicitation: {
        form: (params) => {
          elicited.push(params.message);
          return { action: 'accept', content: { name: 'Ada' } };
        },
      },
    };
    const contentTypes: string[] = [];
    const recording: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      contentTypes.push(response.headers.get('content-type') ?? '');
      return response;
    };
    const client = new McpClient({ name: 'framework-client', version: '1.0.0' }, options);
    cleanups.push(() => client.close());
    await within(
      client.connect(new StreamableHttpClientTransport(app.url, { fetch: recording })),
      10_000,
      'connect',
    );
    return { client, held, contentTypes, elicited };
  }

  test('legacy era: initialize, list, a call with progress over SSE, an elicitation round', async () => {
    const { client, contentTypes, elicited } = await start('legacy');
    expect(client.era).toBe('legacy');
    expect(client.serverInfo).toMatchObject({ name: 'framework-test', version: '1.0.0' });
    expect((await within(client.listAllTools())).map((tool) => tool.name).sort()).toEqual([
      'ask',
      'count',
      'hold',
      'whoami',
    ]);

    const progress: number[] = [];
    contentTypes.length = 0;
    const counted = await within(
      client.callTool('count', {}, { onprogress: (p) => progress.push(p.progress) }),
    );
    expect(text(counted)).toBe('counted 3');
    expect(progress).toEqual([1, 2, 3]);
    // The progress came on the call's own SSE stream.
    expect(contentTypes).toEqual(['text/event-stream']);

    // The elicitation request reaches the client while the call's stream is still open: a
    // framework that buffered the SSE body would deadlock here (and hit the bound).
    expect(text(await within(client.callTool('ask', {}), 10_000, 'ask'))).toBe('hello Ada');
    expect(elicited).toEqual(['Your name?']);
    expect(text(await within(client.callTool('whoami', {})))).toBe(JSON.stringify(AUTH));
  });

  test('2026-07-28 era: list, a call with progress, an elicitation round (input_required)', async () => {
    const { client, elicited } = await start('modern');
    expect(client.era).toBe('modern');
    expect(client.serverInfo).toMatchObject({ name: 'framework-test' });
    expect((await within(client.listAllTools())).map((tool) => tool.name).sort()).toEqual([
      'ask',
      'count',
      'hold',
      'whoami',
    ]);
    const progress: number[] = [];
    const counted = await within(
      client.callTool('count', {}, { onprogress: (p) => progress.push(p.progress) }),
    );
    expect(text(counted)).toBe('counted 3');
    expect(progress).toEqual([1, 2, 3]);
    expect(text(await within(client.callTool('ask', {}), 10_000, 'ask'))).toBe('hello Ada');
    expect(elicited).toEqual(['Your name?']);
    expect(text(await within(client.callTool('whoami', {})))).toBe(JSON.stringify(AUTH));
  });

  test('a client that disconnects mid-call aborts the handler (2026-07-28: closing the stream is the cancel)', async () => {
    const { client, held } = await start('modern');
    const hold = held();
    const controller = new AbortController();
    const call = client.callTool('hold', {}, { signal: controller.signal });
    const rejected = expect(call).rejects.toBeInstanceOf(RequestAbortedError);
    await within(hold.started, 5_000, 'hold started');
    controller.abort();
    await rejected;
    // The server learns it only from the closed connection: the framework must pass that on.
    expect(await within(hold.aborted, 5_000, 'handler aborted')).toBeInstanceOf(CancelledByPeerError);
  });
}
