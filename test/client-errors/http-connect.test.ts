/**
 * An HTTP client that cannot reach its server says so at the top level: the URL and the system
 * error code (`ECONNREFUSED`), not undici's bare "fetch failed"; the original error stays the
 * `cause` (under an `HttpTransportError` with `url` and `code`).
 */
import { afterEach, describe, expect, test } from 'vitest';
import { serveHttp } from 'keel-mcp/node';
import { Client, EraDetectionError, McpClient } from 'keel-mcp/client';
import { ConnectionClosedError } from 'keel-mcp/core';
import { McpServer } from 'keel-mcp/server';
import { HttpTransportError, StreamableHttpClientTransport } from 'keel-mcp/http';
import { freePort } from '../helpers/free-port.js';
import { useProcessGuard, within } from '../helpers/guard.js';

useProcessGuard();

const INFO = { name: 'http-errors', version: '1.0.0' };
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function failure(promise: Promise<unknown>): Promise<Error> {
  const error = await within(promise).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(Error);
  return error as Error;
}

/** The transport's error under the engine's wrapper(s). */
function transportError(error: unknown): HttpTransportError | undefined {
  for (let e = error; e instanceof Error; e = e.cause) if (e instanceof HttpTransportError) return e;
  return undefined;
}

function transport(url: string, fetch?: typeof globalThis.fetch): StreamableHttpClientTransport {
  const t = new StreamableHttpClientTransport(new URL(url), fetch ? { fetch } : {});
  cleanups.push(() => t.close());
  return t;
}

/** undici's shape of a refused connection: TypeError "fetch failed", the system error as `cause`. */
function refused(port: number): TypeError {
  const system = Object.assign(new Error(`connect ECONNREFUSED 127.0.0.1:${port}`), { code: 'ECONNREFUSED' });
  return new TypeError('fetch failed', { cause: system });
}

describe('an HTTP server that cannot be reached', () => {
  test('McpClient.connect (era auto): EraDetectionError naming the URL and ECONNREFUSED', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/mcp`;
    const error = await failure(McpClient.connect(transport(url), { info: INFO }));
    expect(error).toBeInstanceOf(EraDetectionError);
    expect(error.message).toContain(`Could not reach ${url}: ECONNREFUSED`);
    expect(error.message).toMatch(/ECONNREFUSED \(connect ECONNREFUSED 127\.0\.0\.1:\d+\)$/);
    const cause = transportError(error);
    expect(cause).toMatchObject({ url, code: 'ECONNREFUSED', status: undefined });
    // undici's error is kept, unchanged, under it.
    expect(cause?.cause).toBeInstanceOf(TypeError);
    expect((cause?.cause as Error).message).toBe('fetch failed');
  });

  test('Client.connect (legacy initialize): ConnectionClosedError naming the URL and ECONNREFUSED', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/mcp`;
    const error = await failure(new Client(INFO).connect(transport(url)));
    expect(error).toBeInstanceOf(ConnectionClosedError);
    expect(error.message).toMatch(
      new RegExp(
        `^Could not send the request: Could not reach ${url.replace(/\./g, '\\.')}: ECONNREFUSED \\(connect ECONNREFUSED`,
      ),
    );
    expect(error.cause).toBeInstanceOf(HttpTransportError);
    expect(error.cause).toMatchObject({ url, code: 'ECONNREFUSED' });
  });

  test('a request to a server that went away names the URL and ECONNREFUSED', async () => {
    const server = new McpServer({ name: 's', version: '1' }, { onerror: undefined });
    server.tool('echo', { description: 'x' }, () => 'x');
    const serving = await serveHttp(server, { port: 0, host: '127.0.0.1', keepAliveMs: 0 });
    const client = new McpClient(INFO, { era: 'legacy' });
    cleanups.push(() => client.close());
    await within(client.connect(transport(serving.url)));
    await within(serving.close({ deadlineMs: 2_000 }));
    const error = await failure(client.callTool('echo', {}));
    expect(error).toBeInstanceOf(ConnectionClosedError);
    expect(error.message).toContain(`Could not reach ${serving.url}: ECONNREFUSED`);
  });

  test("an AggregateError's members (every address of a host failed): their code is found", async () => {
    const both = new AggregateError(
      [
        Object.assign(new Error('connect ECONNREFUSED ::1:9'), { code: 'ECONNREFUSED' }),
        Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' }),
      ],
      '',
    );
    const fetch = (() =>
      Promise.reject(new TypeError('fetch failed', { cause: both }))) as typeof globalThis.fetch;
    const error = await failure(new Client(INFO).connect(transport('http://localhost:9/mcp', fetch)));
    expect(error.message).toContain(
      'Could not reach http://localhost:9/mcp: ECONNREFUSED (connect ECONNREFUSED ::1:9; connect ECONNREFUSED 127.0.0.1:9)',
    );
    expect(transportError(error)?.cause).toBeInstanceOf(TypeError);
  });

  test('credentials and the query string stay out of the message', async () => {
    const fetch = (() => Promise.reject(refused(9))) as typeof globalThis.fetch;
    const error = await failure(
      new Client(INFO).connect(transport('http://user:secret@127.0.0.1:9/mcp?key=token123', fetch)),
    );
    expect(error.message).toContain('Could not reach http://127.0.0.1:9/mcp: ECONNREFUSED');
    expect(error.message).not.toContain('secret');
    expect(error.message).not.toContain('token123');
  });

  test('a fetch failure without a code names the URL and what is known', async () => {
    const fetch = (() => Promise.reject(new TypeError('fetch failed'))) as typeof globalThis.fetch;
    const error = await failure(new Client(INFO).connect(transport('http://127.0.0.1:9/mcp', fetch)));
    expect(error.message).toBe(
      'Could not send the request: Could not reach http://127.0.0.1:9/mcp: fetch failed',
    );
    expect(transportError(error)?.code).toBeUndefined();
  });

  test('an error that is no network failure passes through as it was', async () => {
    const fetch = (() => Promise.reject(new RangeError('custom fetch broke'))) as typeof globalThis.fetch;
    const error = await failure(new Client(INFO).connect(transport('http://127.0.0.1:9/mcp', fetch)));
    expect(error).toBeInstanceOf(ConnectionClosedError);
    expect(error.message).toBe('Could not send the request: custom fetch broke');
    expect(error.cause).toBeInstanceOf(RangeError);
  });
});
