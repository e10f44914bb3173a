/**
 * Issue 23 item 7: an `application/json` answer is read with a size cap (`maxJsonSize`), like SSE
 * events are (`maxEventSize`). Valid JSON followed by endless whitespace is still valid JSON: read
 * without a cap, such an answer grew the client to gigabytes and killed it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ConnectionClosedError } from 'keel-mcp/core';
import { HttpTransportError } from 'keel-mcp/http';
import { readJsonMessages } from '../../src/transports/http/client/post-answers.js';
import { useProcessGuard, within } from '../helpers/guard.js';
import { connectClient, outcome } from './support/connect.js';
import { startMockServer, type MockServer } from './support/mock-server.js';

useProcessGuard();

const CAP = 64 * 1024;
/** The server stops by itself past this, so a client that never hangs up cannot hang the test. */
const HARD_LIMIT = 32 * 1024 * 1024;
const CHUNK = ' '.repeat(16 * 1024);

let server: MockServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** What the endless answer's writer did: bytes handed to the socket, and whether the client hung up. */
interface Endless {
  written: number;
  hungUp: boolean;
}

/**
 * A server whose `tools/call` of `endless` answers a valid JSON-RPC result, then whitespace until
 * the client hangs up (or HARD_LIMIT), waiting for `drain` when the socket is full.
 */
async function endlessServer(): Promise<{ server: MockServer; stopped: Promise<Endless> }> {
  let report!: (result: Endless) => void;
  const stopped = new Promise<Endless>((resolve) => (report = resolve));
  const mock = await startMockServer((seen, _req, res) => {
    if (seen.body?.params?.name !== 'endless') return false;
    res.writeHead(200, { 'content-type': 'application/json' });
    let written = 0;
    let hungUp = false;
    res.once('close', () => (hungUp = !res.writableFinished));
    const pump = (): void => {
      while (!res.destroyed && !hungUp && written < HARD_LIMIT) {
        const text = written === 0 ? JSON.stringify({ jsonrpc: '2.0', id: seen.body.id, result: {} }) : CHUNK;
        written += text.length;
        if (!res.write(text)) {
          res.once('drain', pump);
          return;
        }
      }
      if (!res.destroyed && !hungUp) res.end();
      report({ written, hungUp: hungUp || res.destroyed });
    };
    res.once('close', () => report({ written, hungUp: true }));
    pump();
    return true;
  });
  return { server: mock, stopped };
}

/** `fetch` that counts the body bytes the client actually pulled from the `endless` answer. */
function countingFetch(): { fetch: typeof globalThis.fetch; read: () => number } {
  let read = 0;
  const counting: typeof globalThis.fetch = async (input, init) => {
    const response = await globalThis.fetch(input, init);
    const body = typeof init?.body === 'string' ? init.body : '';
    if (!response.body || !body.includes('"endless"')) return response;
    const counter = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        read += chunk.byteLength;
        controller.enqueue(chunk);
      },
    });
    return new Response(response.body.pipeThrough(counter), response);
  };
  return { fetch: counting, read: () => read };
}

describe('issue 23 item 7: application/json answers are capped (maxJsonSize)', () => {
  it('an endless JSON answer fails its request naming the cap; reading stopped near the cap; the transport keeps serving', async () => {
    const endless = await endlessServer();
    server = endless.server;
    const counting = countingFetch();
    const { client } = await connectClient(server.url, {
      openGetStream: false,
      maxJsonSize: CAP,
      fetch: counting.fetch,
    });

    const error = await outcome(client.request('tools/call', { name: 'endless', arguments: {} }));
    expect(error).toBeInstanceOf(ConnectionClosedError);
    const cause = (error as Error).cause;
    expect(cause).toBeInstanceOf(HttpTransportError);
    expect((cause as HttpTransportError).message).toMatch(/larger than 65536 bytes \(the maxJsonSize option/);
    expect((cause as HttpTransportError).status).toBe(200);
    // The client's own message says why too (not only its cause).
    expect((error as Error).message).toContain('maxJsonSize');

    // The client hung up: the server did not get to write its hard limit, and the client read
    // a small multiple of the cap at most (one chunk past it, plus what the pipe held).
    const { written, hungUp } = await within(endless.stopped, 5_000, 'the server to stop writing');
    expect(hungUp).toBe(true);
    expect(written).toBeLessThan(HARD_LIMIT);
    expect(counting.read()).toBeGreaterThan(CAP);
    expect(counting.read()).toBeLessThan(8 * CAP);

    // Only that request failed.
    expect(await within(client.request('tools/call', { name: 'fine', arguments: {} }))).toEqual({});
    await within(client.close());
  });

  it('an answer within the cap is read whole, whitespace and all', async () => {
    server = await startMockServer((seen, _req, res) => {
      if (seen.body?.params?.name !== 'padded') return false;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ jsonrpc: '2.0', id: seen.body.id, result: { ok: true } }) + ' '.repeat(CAP - 100),
      );
      return true;
    });
    const { client } = await connectClient(server.url, { openGetStream: false, maxJsonSize: CAP });
    expect(await within(client.request('tools/call', { name: 'padded', arguments: {} }))).toEqual({
      ok: true,
    });
    await within(client.close());
  });

  it('a Content-Length above the cap is refused without reading the body', async () => {
    let pulls = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulls++;
        controller.enqueue(new TextEncoder().encode(' '));
      },
    });
    const response = new Response(body, {
      headers: { 'content-type': 'application/json', 'content-length': String(CAP + 1) },
    });
    const pullsBefore = pulls; // the stream may pull once when it is made
    const error = await readJsonMessages(response, CAP).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(HttpTransportError);
    expect((error as Error).message).toContain(`larger than ${CAP} bytes`);
    expect(pulls).toBe(pullsBefore);
  });
});
