/**
 * A real HTTP server (node adapter, 127.0.0.1, port 0) around a low-level Server with a few
 * test tools, plus raw-fetch helpers: no client SDK between the test and the wire.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { serveHttp, type HttpServing, type ServeHttpOptions } from 'keel-mcp/node';
import type { JsonObject } from 'keel-mcp/core';
import { Server } from 'keel-mcp/server';

export const PROTOCOL = '2025-11-25';

/** What the test tools report, so tests can await handler events instead of sleeping. */
export class Probes {
  readonly started = new Map<string, Deferred<void>>();
  readonly aborted = new Map<string, Deferred<unknown>>();
  readonly finished = new Map<string, Deferred<void>>();
  readonly gates = new Map<string, Deferred<void>>();

  for<T>(table: Map<string, Deferred<T>>, key: string): Deferred<T> {
    let entry = table.get(key);
    if (!entry) table.set(key, (entry = deferred<T>()));
    return entry;
  }
}

export interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  settled: boolean;
}

export function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const entry: Deferred<T> = {
    promise: new Promise<T>((r) => (resolve = r)),
    resolve: (value) => {
      entry.settled = true;
      resolve(value);
    },
    settled: false,
  };
  return entry;
}

/**
 * Tools (by `name`, keyed by `arguments.key` for probes):
 * - `echo`: returns at once (JSON response).
 * - `log-then-echo`: sends a log notification first (SSE response).
 * - `block`: asks the client for elicitation (never answered by tests) and waits.
 * - `gated`: sends a notification, waits for the test's gate, sends another, returns.
 */
export function createTestServer(probes: Probes): Server {
  const server = new Server({ name: 'http-test', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler('tools/call', async (params, ctx) => {
    const args = (params.arguments ?? {}) as JsonObject;
    const key = String(args.key ?? params.name);
    const signal = ctx.signal;
    signal.addEventListener('abort', () => probes.for(probes.aborted, key).resolve(signal.reason), {
      once: true,
    });
    probes.for(probes.started, key).resolve();
    try {
      switch (params.name) {
        case 'echo':
          return text(`echo ${typeof args.text === 'string' ? args.text : ''}`);
        case 'log-then-echo':
          await ctx.notify('notifications/message', { level: 'info', data: 'working' });
          return text('logged');
        case 'block':
          await ctx.request('elicitation/create', {
            message: 'never answered',
            requestedSchema: { type: 'object', properties: {} },
          });
          return text('unblocked');
        case 'gated':
          await ctx.notify('notifications/message', { level: 'info', data: 'before gate' });
          await probes.for(probes.gates, key).promise;
          await ctx.notify('notifications/message', { level: 'info', data: 'after gate' });
          return text(`gated ${key} done`);
        default:
          return text('unknown');
      }
    } finally {
      probes.for(probes.finished, key).resolve();
    }
  });
  return server;
}

function text(value: string): JsonObject {
  return { content: [{ type: 'text', text: value }] };
}

export interface Harness {
  serving: HttpServing;
  server: Server;
  probes: Probes;
  url: string;
  close(): Promise<void>;
}

export async function startHarness(options: ServeHttpOptions = {}): Promise<Harness> {
  const probes = new Probes();
  const server = createTestServer(probes);
  const serving = await serveHttp(server, { port: 0, keepAliveMs: 0, ...options });
  return { serving, server, probes, url: serving.url, close: () => serving.close({ deadlineMs: 2_000 }) };
}

export const JSON_AND_SSE = 'application/json, text/event-stream';

export interface PostOptions {
  sessionId?: string;
  headers?: Record<string, string> | undefined;
  signal?: AbortSignal | undefined;
}

export function post(url: string, body: unknown, options: PostOptions = {}): Promise<Response> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: JSON_AND_SSE,
    ...options.headers,
  };
  if (options.sessionId !== undefined) headers['mcp-session-id'] = options.sessionId;
  return fetch(url, {
    method: 'POST',
    headers,
    body: typeof body === 'string' ? body : JSON.stringify(body),
    signal: options.signal ?? null,
  });
}

export function initializeRequest(id: number | string = 0): JsonObject {
  return {
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: {
      protocolVersion: PROTOCOL,
      capabilities: { elicitation: {} },
      clientInfo: { name: 't', version: '1' },
    },
  };
}

/** Initialize a session and send `initialized`; returns the session id. */
export async function openSession(url: string): Promise<string> {
  const response = await post(url, initializeRequest());
  const sessionId = response.headers.get('mcp-session-id');
  const body = (await response.json()) as JsonObject;
  if (!sessionId || !body.result)
    throw new Error(`initialize failed: ${response.status} ${JSON.stringify(body)}`);
  const ack = await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, { sessionId });
  if (ack.status !== 202) throw new Error(`initialized got ${ack.status}`);
  return sessionId;
}

export function callTool(id: number, name: string, args: JsonObject = {}): JsonObject {
  return { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } };
}

export async function ping(url: string, sessionId: string, id = 'ping'): Promise<JsonObject> {
  const response = await post(url, { jsonrpc: '2.0', id, method: 'ping' }, { sessionId });
  if (response.status !== 200) throw new Error(`ping got ${response.status}`);
  return (await response.json()) as JsonObject;
}

/** Reads SSE events from a response body, one at a time. */
export class SseReader {
  private readonly queue: EventSourceMessage[] = [];
  private waiter: (() => void) | undefined;
  private ended = false;
  retry: number | undefined;
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;

  constructor(response: Response) {
    if (!response.body) throw new Error('no body');
    this.reader = response.body.getReader();
    void this.pump();
  }

  get done(): boolean {
    return this.ended && this.queue.length === 0;
  }

  /** The next event, or undefined when the stream ended. */
  async next(): Promise<EventSourceMessage | undefined> {
    while (this.queue.length === 0 && !this.ended)
      await new Promise<void>((resolve) => (this.waiter = resolve));
    return this.queue.shift();
  }

  /** The next event carrying data (skips priming events). */
  async nextMessage(): Promise<JsonObject | undefined> {
    for (;;) {
      const event = await this.next();
      if (!event) return undefined;
      if (event.data !== '') return JSON.parse(event.data) as JsonObject;
    }
  }

  /** Read to the end; returns all data-carrying messages. */
  async rest(): Promise<JsonObject[]> {
    const all: JsonObject[] = [];
    for (let message = await this.nextMessage(); message; message = await this.nextMessage())
      all.push(message);
    return all;
  }

  cancel(): Promise<void> {
    return this.reader.cancel().catch(() => undefined);
  }

  private async pump(): Promise<void> {
    const decoder = new TextDecoder();
    const parser = createParser({
      onEvent: (event) => {
        this.queue.push(event);
        this.wake();
      },
      onRetry: (ms) => {
        this.retry = ms;
      },
    });
    try {
      for (;;) {
        const { done, value } = await this.reader.read();
        if (done) break;
        parser.feed(decoder.decode(value, { stream: true }));
      }
    } catch {
      // Aborted by the test: same as the end.
    }
    this.ended = true;
    this.wake();
  }

  private wake(): void {
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.();
  }
}
