/**
 * Review fix (brief SF item 1): era detection falls back to `initialize` only on what legacy
 * servers say (spec: versioning and the HTTP / stdio "Backward Compatibility" sections). Over HTTP
 * a 5xx, a network error or no answer in time fails `connect` with `EraDetectionError` and caches
 * nothing; a cached legacy server whose `initialize` fails for any reason but the caller's abort is
 * probed again.
 */
import { describe, expect, test } from 'vitest';
import { serveHttp } from 'keel-mcp/node';
import { McpClient, type McpClientOptions, EraDetectionError } from 'keel-mcp/client';
import {
  AuthorizationError,
  ConnectionClosedError,
  ErrorCode,
  RequestAbortedError,
  RequestTimeoutError,
  type Transport,
} from 'keel-mcp/core';
import { cachedEra, rememberEra } from '../../src/client/modern/era.js';
import { McpServer } from 'keel-mcp/server';
import { HttpTransportError, StreamableHttpClientTransport } from 'keel-mcp/http';
import { useProcessGuard, within } from '../helpers/guard.js';
import { INFO, initializeResult, useModern } from './helpers.js';

useProcessGuard();
const { raw, track } = useModern();

const URL_ = 'http://127.0.0.1:9/mcp';
const KEY = 'http://127.0.0.1:9/mcp';

type Fetch = typeof fetch;
interface Posted {
  method: string | undefined;
  id: unknown;
}

/** A fake server behind `fetch`: `answer` sees each POSTed message; every POST is logged. */
function fakeFetch(answer: (message: Posted, signal: AbortSignal | undefined) => Promise<Response>): {
  fetch: Fetch;
  posted: Posted[];
} {
  const posted: Posted[] = [];
  const fetchFn: Fetch = async (_input, init) => {
    if (init?.method !== 'POST') return new Response(null, { status: 405 });
    const body = JSON.parse(init.body as string) as { method?: string; id?: unknown };
    const message = { method: body.method, id: body.id };
    posted.push(message);
    return answer(message, init.signal ?? undefined);
  };
  return { fetch: fetchFn, posted };
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

async function connectOver(
  fetchFn: Fetch,
  options: McpClientOptions = {},
  connectOptions: { timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<McpClient> {
  const c = new McpClient(INFO, options);
  track(() => c.close());
  const transport = new StreamableHttpClientTransport(URL_, { fetch: fetchFn, openGetStream: false });
  await within(c.connect(transport, connectOptions), 10_000, 'connect');
  return c;
}

const failed = async (attempt: Promise<unknown>): Promise<unknown> =>
  attempt.then(
    () => {
      throw new Error('connect succeeded');
    },
    (error: unknown) => error,
  );

function statusIn(error: unknown): number | undefined {
  for (let e = error; e instanceof Error; e = e.cause) if (e instanceof HttpTransportError) return e.status;
  return undefined;
}

describe('over HTTP: only a 4xx (or a JSON-RPC error answer) is a legacy signal', () => {
  test("the reviewer's case on a real server: one 503 to the probe fails connect, caches nothing; the next connect is modern", async () => {
    const server = new McpServer({ name: 's', version: '1' }, { onerror: undefined });
    server.tool('echo', { description: 'x' }, () => 'x');
    const serving = await serveHttp(server, { port: 0, host: '127.0.0.1', keepAliveMs: 0 });
    track(() => serving.close({ deadlineMs: 2_000 }));
    const methods: (string | undefined)[] = [];
    let first = true;
    const busyOnce: Fetch = async (input, init) => {
      if (init?.method === 'POST')
        methods.push((JSON.parse(init.body as string) as { method?: string }).method);
      if (first && init?.method === 'POST') {
        first = false;
        return new Response('busy', { status: 503 });
      }
      return fetch(input, init);
    };
    const a = new McpClient(INFO);
    track(() => a.close());
    const transport = new StreamableHttpClientTransport(serving.url, { fetch: busyOnce });
    const error = await failed(within(a.connect(transport)));
    expect(error).toBeInstanceOf(EraDetectionError);
    expect((error as Error).message).toContain('HTTP 503');
    expect(statusIn(error)).toBe(503);
    expect(methods).toEqual(['server/discover']);
    expect(cachedEra(transport.serverKey)).toBeUndefined();
    expect(a.isConnected).toBe(false);

    const b = new McpClient(INFO);
    track(() => b.close());
    await within(b.connect(new StreamableHttpClientTransport(serving.url, { fetch: busyOnce })));
    expect(b.era).toBe('modern');
    expect(cachedEra(transport.serverKey)).toBe('modern');
  });

  test.each([500, 502, 503, 504])(
    'HTTP %i without a body to the probe: EraDetectionError, no initialize',
    async (status) => {
      const { fetch: f, posted } = fakeFetch(async () => new Response('down', { status }));
      const error = await failed(connectOver(f));
      expect(error).toBeInstanceOf(EraDetectionError);
      expect(statusIn(error)).toBe(status);
      expect(posted.map((p) => p.method)).toEqual(['server/discover']);
      expect(cachedEra(KEY)).toBeUndefined();
    },
  );

  test("Keel's busy answer (-32010 with HTTP 503) is no era signal either", async () => {
    const { fetch: f, posted } = fakeFetch(async (m) =>
      json(503, { jsonrpc: '2.0', id: m.id, error: { code: ErrorCode.ServerBusy, message: 'Server busy' } }),
    );
    const error = await failed(connectOver(f));
    expect(error).toBeInstanceOf(EraDetectionError);
    expect(posted.map((p) => p.method)).toEqual(['server/discover']);
    expect(cachedEra(KEY)).toBeUndefined();
  });

  test('issue 26: a quota refusal (-32011 with HTTP 429) is no era signal either', async () => {
    const { fetch: f, posted } = fakeFetch(async (m) =>
      json(429, {
        jsonrpc: '2.0',
        id: m.id,
        error: {
          code: ErrorCode.QuotaExceeded,
          message: 'Over quota',
          data: { limit: 'rate', retryAfterMs: 1000 },
        },
      }),
    );
    const error = await failed(connectOver(f));
    expect(error).toBeInstanceOf(EraDetectionError);
    expect(posted.map((p) => p.method)).toEqual(['server/discover']);
    expect(cachedEra(KEY)).toBeUndefined();
  });

  test('a network error to the probe: EraDetectionError, nothing cached', async () => {
    const { fetch: f, posted } = fakeFetch(async () => {
      throw new TypeError('fetch failed');
    });
    const error = await failed(connectOver(f));
    expect(error).toBeInstanceOf(EraDetectionError);
    expect((error as Error).message).toContain('fetch failed');
    expect(posted.map((p) => p.method)).toEqual(['server/discover']);
    expect(cachedEra(KEY)).toBeUndefined();
  });

  test("no answer over HTTP within connect's timeoutMs: connect fails, no initialize, nothing cached", async () => {
    const { fetch: f, posted } = fakeFetch(
      (_m, signal) =>
        new Promise<Response>((_resolve, reject) => {
          signal?.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
        }),
    );
    // discoverTimeoutMs is shorter: over HTTP silence is no legacy answer, so it does not apply.
    const error = await failed(connectOver(f, { discoverTimeoutMs: 10 }, { timeoutMs: 300 }));
    // Issue 30 item 9: which failure, not just "an Error": connect's one budget ran out
    // (docs/modern-era.md), named with connect's timeoutMs; not the caller's abort, not the
    // probe's discoverTimeoutMs, not an era answer.
    expect(error).toBeInstanceOf(RequestTimeoutError);
    expect((error as RequestTimeoutError).timeoutMs).toBe(300);
    expect((error as Error).message).toBe('Request timed out after 300 ms');
    expect(posted.map((p) => p.method)).toEqual(['server/discover']);
    expect(cachedEra(KEY)).toBeUndefined();
  });

  test('a 4xx without a modern body still means legacy (fallback and cache)', async () => {
    const { fetch: f, posted } = fakeFetch(async (m) => {
      if (m.method === 'initialize') {
        return json(
          200,
          { jsonrpc: '2.0', id: m.id, result: initializeResult() },
          { 'mcp-session-id': 's1' },
        );
      }
      if (m.id === undefined) return new Response(null, { status: 202 });
      return json(400, { jsonrpc: '2.0', id: null, error: { code: -32000, message: 'No valid session ID' } });
    });
    const c = await connectOver(f);
    expect(c.era).toBe('legacy');
    expect(posted.map((p) => p.method)).toEqual([
      'server/discover',
      'initialize',
      'notifications/initialized',
    ]);
    expect(cachedEra(KEY)).toBe('legacy');
  });
});

describe('a modern error answered with id null', () => {
  test('-32022 in a 400 with id null is still a modern answer: the probe retries with the shared version', async () => {
    let probes = 0;
    const { fetch: f, posted } = fakeFetch(async (m) => {
      if (m.method === 'server/discover' && probes++ === 0) {
        return json(400, {
          jsonrpc: '2.0',
          id: null,
          error: {
            code: ErrorCode.UnsupportedProtocolVersion,
            message: 'Unsupported protocol version',
            data: { supported: ['2026-07-28'], requested: '2026-07-28' },
          },
        });
      }
      if (m.method === 'server/discover') {
        return json(200, {
          jsonrpc: '2.0',
          id: m.id,
          result: { resultType: 'complete', supportedVersions: ['2026-07-28'], capabilities: {} },
        });
      }
      return json(400, { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'unexpected' } });
    });
    const c = await connectOver(f);
    expect(c.era).toBe('modern');
    expect(posted.map((p) => p.method)).toEqual(['server/discover', 'server/discover']);
  });
});

describe('a cached legacy server whose initialize fails', () => {
  test("the reviewer's case: redeployed modern-only, initialize refused with a body-less 400 → probed again, modern", async () => {
    rememberEra(KEY, 'legacy');
    const { fetch: f, posted } = fakeFetch(async (m) => {
      if (m.method === 'server/discover') {
        return json(200, {
          jsonrpc: '2.0',
          id: m.id,
          result: { resultType: 'complete', supportedVersions: ['2026-07-28'], capabilities: {} },
        });
      }
      return json(400, {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: 'initialize is not supported' },
      });
    });
    const c = await connectOver(f);
    expect(c.era).toBe('modern');
    expect(posted.map((p) => p.method)).toEqual(['initialize', 'server/discover']);
    expect(cachedEra(KEY)).toBe('modern');
  });

  test('initialize fails with a network error: probed again; that fails too, and the stale entry is gone', async () => {
    rememberEra(KEY, 'legacy');
    const { fetch: f, posted } = fakeFetch(async () => {
      throw new TypeError('fetch failed');
    });
    const error = await failed(connectOver(f));
    expect(error).toBeInstanceOf(EraDetectionError);
    expect(posted.map((p) => p.method)).toEqual(['initialize', 'server/discover']);
    expect(cachedEra(KEY)).toBeUndefined();
  });

  test("the caller's abort during initialize: no re-probe, the cache is left as it was", async () => {
    const key = 'http://127.0.0.1:1/mcp-abort';
    rememberEra(key, 'legacy');
    let started!: () => void;
    const initializing = new Promise<void>((resolve) => (started = resolve));
    const server = raw({
      initialize: () => {
        started();
        return new Promise(() => undefined);
      },
    });
    const controller = new AbortController();
    const c = new McpClient(INFO);
    track(() => c.close());
    const transport: Transport = Object.assign(server.transport, { serverKey: key });
    const connecting = c.connect(transport, { signal: controller.signal });
    await within(initializing);
    controller.abort(new Error('user'));
    await expect(within(connecting)).rejects.toBeInstanceOf(RequestAbortedError);
    expect(server.seen).toEqual(['initialize']);
    expect(cachedEra(key)).toBe('legacy');
  });
});

describe('stdio-like transports (no serverKey)', () => {
  test('the connection closing during the probe is no legacy answer: ConnectionClosedError saying so (issue 23 item 9)', async () => {
    const server = raw({
      'server/discover': async () => {
        await server.transport.close();
        return new Promise(() => undefined);
      },
      initialize: () => initializeResult(),
    });
    const c = new McpClient(INFO);
    track(() => c.close());
    const error = await failed(within(c.connect(server.transport)));
    // Not an era question: the connection ended under the probe.
    expect(error).toBeInstanceOf(ConnectionClosedError);
    expect(error).not.toBeInstanceOf(EraDetectionError);
    expect((error as Error).message).toMatch(/^The connection to the server closed during connect/);
    expect(server.seen).toEqual(['server/discover']);
  });
});

describe('issue 11: authorization refusals are no era signal', () => {
  test.each([401, 403])(
    'HTTP %i to the probe without an auth provider: EraDetectionError, no initialize',
    async (status) => {
      const { fetch: f, posted } = fakeFetch(async () =>
        json(status, { error: 'invalid_token' }, { 'www-authenticate': 'Bearer error="invalid_token"' }),
      );
      const error = await failed(connectOver(f));
      expect(error).toBeInstanceOf(EraDetectionError);
      expect(statusIn(error)).toBe(status);
      if (status === 401) expect((error as Error).message).toContain('requires authorization');
      expect(posted.map((p) => p.method)).toEqual(['server/discover']);
      expect(cachedEra(KEY)).toBeUndefined();
    },
  );

  test('a failed OAuth flow fails connect with the AuthorizationError itself, and nothing else is sent', async () => {
    const { fetch: f, posted } = fakeFetch(async () =>
      json(401, {}, { 'www-authenticate': 'Bearer resource_metadata="http://127.0.0.1:9/prm"' }),
    );
    const refused = new AuthorizationError('discovery', 'no protected resource metadata');
    const c = new McpClient(INFO);
    track(() => c.close());
    const auth = { authorization: async () => undefined, challenge: () => Promise.reject(refused) };
    const transport = new StreamableHttpClientTransport(URL_, { fetch: f, auth, openGetStream: false });
    const error = await failed(within(c.connect(transport), 10_000, 'connect'));
    expect(error).toBe(refused);
    expect(posted.map((p) => p.method)).toEqual(['server/discover']);
    expect(cachedEra(KEY)).toBeUndefined();
  });
});
