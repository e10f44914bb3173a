/**
 * Guarantee 8 from the client's side (issue 9, item 2): a server→client request that arrived on a
 * call's SSE stream belongs to that call. When the client gives the call up (caller abort,
 * timeout, lost response), its own handler for that request is aborted and never answered, even
 * when the server fails to send the cancel (or sends it where the client no longer reads).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { McpClient } from 'keel-mcp/client';
import {
  ConnectionClosedError,
  RequestAbortedError,
  RequestTimeoutError,
  type RequestId,
} from 'keel-mcp/core';
import { serveHttp, type HttpServing } from 'keel-mcp/node';
import { McpServer } from 'keel-mcp/server';
import { StreamableHttpClientTransport } from 'keel-mcp/http';
import { useProcessGuard, within } from '../helpers/guard.js';
import { outcome } from './support/connect.js';
import { sse, startMockServer, type MockServer } from './support/mock-server.js';

useProcessGuard();

let mock: MockServer | undefined;
let keel: HttpServing | undefined;
afterEach(async () => {
  await mock?.close();
  await keel?.close({ deadlineMs: 2_000 });
  mock = undefined;
  keel = undefined;
});

const ELICIT = {
  jsonrpc: '2.0',
  id: 'elicit-1',
  method: 'elicitation/create',
  params: { message: 'Continue?', requestedSchema: { type: 'object', properties: {} } },
};

interface Asked {
  /** The id the server gave its elicitation request. */
  id: RequestId;
  signal: AbortSignal;
  /** Settles after the handler has settled (it rejects on abort). */
  settled: Promise<void>;
}

/** An McpClient whose elicitation handler never answers by itself: it waits for its abort. */
async function connectAsking(
  url: string,
  openGetStream: boolean,
): Promise<{ client: McpClient; asked: Promise<Asked>; posted: unknown[] }> {
  const posted: unknown[] = [];
  const recordingFetch: typeof fetch = (input, init) => {
    if (init?.method === 'POST' && typeof init.body === 'string') posted.push(JSON.parse(init.body));
    return fetch(input, init);
  };
  let reached!: (asked: Asked) => void;
  const asked = new Promise<Asked>((resolve) => (reached = resolve));
  const transport = new StreamableHttpClientTransport(url, { openGetStream, fetch: recordingFetch });
  const client = await within(
    McpClient.connect(transport, {
      era: 'legacy', // server→client requests on the POST stream
      elicitation: {
        form: (_params, ctx) => {
          let settle!: () => void;
          const settled = new Promise<void>((resolve) => (settle = resolve));
          reached({ id: ctx.id, signal: ctx.signal, settled });
          return new Promise((_resolve, reject) => {
            ctx.signal.addEventListener(
              'abort',
              () => {
                reject(ctx.signal.reason as Error);
                // The engine's settle callback was queued by the reject above; run after it.
                queueMicrotask(settle);
              },
              { once: true },
            );
          });
        },
      },
    }),
    5_000,
    'connect',
  );
  return { client, asked: within(asked, 5_000, 'elicitation reaching the client'), posted };
}

/** The client's answers (JSON-RPC responses) to the server request `id`, among the POSTed bodies. */
function answersTo(posted: unknown[], id: RequestId): unknown[] {
  return posted.filter((body: any) => body?.id === id && body?.method === undefined);
}

describe('server→client requests on a call stream end with the call (mock server sends no cancel)', () => {
  const cases = [
    { how: 'caller abort', error: RequestAbortedError },
    { how: 'timeout', error: RequestTimeoutError },
    { how: 'lost response', error: ConnectionClosedError },
  ] as const;
  for (const { how, error: expected } of cases) {
    it(`${how}: the elicitation handler is aborted and nothing answers the elicitation`, async () => {
      mock = await startMockServer((seen, _req, res) => {
        if (seen.body?.method !== 'tools/call') return false;
        const stream = sse(res);
        stream.event({ id: 'e0', retry: 10, data: '' });
        stream.event({ id: 'e1', data: ELICIT });
        // The server then never cancels its elicitation; for "lost" it ends the stream without the
        // response, and refuses to resume it (GET: 405).
        if (how === 'lost response') stream.end();
        return true;
      });
      const { client, asked, posted } = await connectAsking(mock.url, false);
      const abort = new AbortController();
      const call = outcome(
        client.callTool('ask', {}, how === 'timeout' ? { timeoutMs: 2_000 } : { signal: abort.signal }),
      );
      const elicitation = await asked;
      expect(elicitation.id).toBe('elicit-1');
      if (how === 'caller abort') abort.abort(new Error('user gave up'));

      expect(await call).toBeInstanceOf(expected);
      await within(elicitation.settled, 2_000, 'elicitation handler settled');
      expect(elicitation.signal.aborted).toBe(true);
      expect(elicitation.signal.reason).toBeInstanceOf(RequestAbortedError);

      // One round trip later: the call was cancelled once, the elicitation was never answered.
      await within(client.ping());
      const post = mock.posts('tools/call')[0]!;
      const cancels = mock.posts('notifications/cancelled');
      expect(cancels.map((c) => c.body.params.requestId)).toEqual([post.body.id]);
      expect(answersTo(posted, 'elicit-1')).toEqual([]);
      await within(client.close());
    });
  }

  it('a request that came on the GET resuming a call stream is tied to that call too', async () => {
    mock = await startMockServer((seen, _req, res) => {
      if (seen.method === 'GET' && seen.headers['last-event-id'] === 'e0') {
        sse(res).event({ id: 'e1', data: ELICIT });
        return true;
      }
      if (seen.body?.method !== 'tools/call') return false;
      // The call's stream drops right after priming: the client resumes it with GET.
      const stream = sse(res);
      stream.event({ id: 'e0', retry: 10, data: '' });
      stream.end();
      return true;
    });
    const { client, asked, posted } = await connectAsking(mock.url, false);
    const abort = new AbortController();
    const call = outcome(client.callTool('ask', {}, { signal: abort.signal }));
    const elicitation = await asked;
    abort.abort(new Error('user gave up'));

    expect(await call).toBeInstanceOf(RequestAbortedError);
    await within(elicitation.settled, 2_000, 'elicitation handler settled');
    expect(elicitation.signal.reason).toBeInstanceOf(RequestAbortedError);
    await within(client.ping());
    expect(answersTo(posted, 'elicit-1')).toEqual([]);
    await within(client.close());
  });

  it('a request on the standalone GET stream is not tied to any call', async () => {
    mock = await startMockServer((seen, _req, res) => {
      if (seen.method === 'GET') {
        sse(res).event({ id: 'g1', data: ELICIT });
        return true;
      }
      if (seen.body?.method !== 'tools/call') return false;
      sse(res).event({ id: 'e0', retry: 10, data: '' });
      return true;
    });
    const { client, asked } = await connectAsking(mock.url, true);
    const elicitation = await asked;
    const abort = new AbortController();
    const call = outcome(client.callTool('slow', {}, { signal: abort.signal }));
    await mock.waitFor((s) => s.body?.method === 'tools/call', 'tools/call POST');
    abort.abort();
    expect(await call).toBeInstanceOf(RequestAbortedError);
    await within(client.ping());
    expect(elicitation.signal.aborted).toBe(false);
    await within(client.close());
    expect(elicitation.signal.aborted).toBe(true);
  });
});

describe('over a real Keel server: the caller aborts a call blocked on elicitation', () => {
  for (const openGetStream of [false, true]) {
    it(`${openGetStream ? 'with' : 'without'} a GET stream: the client handler is aborted, never answered`, async () => {
      const server = new McpServer({ name: 'asker', version: '1.0.0' });
      let serverAborted!: () => void;
      const serverHandlerAborted = new Promise<void>((resolve) => (serverAborted = resolve));
      server.tool('ask', { description: 'Asks and waits' }, async (_args, ctx) => {
        ctx.signal.addEventListener('abort', () => serverAborted(), { once: true });
        await ctx.elicit({ message: 'Continue?', schema: { type: 'object', properties: {} } });
        return 'answered';
      });
      keel = await serveHttp(server, { port: 0, host: '127.0.0.1', keepAliveMs: 0 });
      const { client, asked, posted } = await connectAsking(keel.url, openGetStream);
      const abort = new AbortController();
      const call = outcome(client.callTool('ask', {}, { signal: abort.signal }));
      const elicitation = await asked;
      abort.abort(new Error('user gave up'));

      expect(await call).toBeInstanceOf(RequestAbortedError);
      await within(elicitation.settled, 2_000, 'elicitation handler settled');
      expect(elicitation.signal.reason).toBeInstanceOf(RequestAbortedError);
      await within(serverHandlerAborted, 2_000, 'server handler aborted by the cancel');
      await within(client.ping());
      expect(answersTo(posted, elicitation.id)).toEqual([]);
      await within(client.close());
    });
  }
});
