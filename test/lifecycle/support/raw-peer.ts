/**
 * Drive one end of an in-memory pair by hand, message by message, with no client or server wrapper
 * (so wrapper cleanup cannot mask an engine bug), plus the wire checks every lifecycle test makes.
 */
import { expect } from 'vitest';
import type { JsonObject, JsonRpcMessage, RequestId } from 'keel-mcp/core';
import { createRecordingPair, type RecordingTransport } from '../../helpers/recording-transport.js';
import { within } from '../../helpers/guard.js';

export type WireMessage = JsonRpcMessage & { id?: RequestId | null; method?: string; params?: JsonObject };

/** A promise with its resolve function outside (for gates and "started" events). */
export interface Deferred<T = void> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(reason: unknown): void;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Resolves when `signal` aborts, with its reason. */
export function aborted(signal: AbortSignal): Promise<unknown> {
  if (signal.aborted) return Promise.resolve(signal.reason);
  return new Promise((resolve) =>
    signal.addEventListener('abort', () => resolve(signal.reason), { once: true }),
  );
}

/** Let every queued microtask and pending in-memory delivery run (no timers involved). */
export function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** One hand-driven end of a pair. `transport` is the raw end; `sent` is what this peer wrote. */
export class RawPeer {
  private readonly iterator: AsyncIterator<unknown>;
  nextId = 1;

  constructor(readonly transport: RecordingTransport) {
    this.iterator = transport[Symbol.asyncIterator]();
  }

  send(message: JsonObject): Promise<void> {
    return this.transport.send({ jsonrpc: '2.0', ...message } as JsonRpcMessage);
  }

  request(method: string, params?: JsonObject, id: RequestId = this.nextId++): Promise<void> {
    return this.send(params === undefined ? { id, method } : { id, method, params });
  }

  notify(method: string, params?: JsonObject): Promise<void> {
    return this.send(params === undefined ? { method } : { method, params });
  }

  cancel(requestId: unknown, reason?: string): Promise<void> {
    return this.notify(
      'notifications/cancelled',
      reason === undefined ? { requestId } : { requestId, reason },
    );
  }

  /** The next message from the other side (bounded wait). */
  async read(what = 'a message', ms = 5_000): Promise<WireMessage> {
    const next = await within(this.iterator.next(), ms, `reading ${what}`);
    if (next.done) throw new Error(`the input ended while reading ${what}`);
    return next.value as WireMessage;
  }

  /** Read until a message matches; earlier messages are returned too, for inspection. */
  async readUntil(match: (m: WireMessage) => boolean, what = 'a matching message'): Promise<WireMessage> {
    for (;;) {
      const message = await this.read(what);
      if (match(message)) return message;
    }
  }

  /** True once the other side closed this peer's input (bounded wait). */
  async inputEnds(ms = 5_000): Promise<boolean> {
    for (;;) {
      const next = await within(this.iterator.next(), ms, 'the end of the input');
      if (next.done) return true;
    }
  }

  /** Legacy handshake: `initialize` (id 1) → response → `notifications/initialized`. */
  async initialize(): Promise<WireMessage> {
    await this.request(
      'initialize',
      {
        protocolVersion: '2025-11-25',
        capabilities: { roots: {} },
        clientInfo: { name: 'raw', version: '1' },
      },
      this.nextId++,
    );
    const response = await this.read('the initialize response');
    await this.notify('notifications/initialized');
    return response;
  }
}

/** A memory pair whose first end is driven by hand. */
export function rawPair(): { peer: RawPeer; peerSide: RecordingTransport; serverSide: RecordingTransport } {
  const [peerSide, serverSide] = createRecordingPair();
  return { peer: new RawPeer(peerSide), peerSide, serverSide };
}

export function isResponse(message: WireMessage): boolean {
  return message.method === undefined && ('result' in message || 'error' in message);
}

/** Responses for `id` among `messages` (strict identity of id: 1 and "1" differ). */
export function responsesFor(messages: readonly JsonRpcMessage[], id: RequestId): WireMessage[] {
  return (messages as WireMessage[]).filter((m) => isResponse(m) && m.id === id);
}

/** Messages with a given method. */
export function withMethod(messages: readonly JsonRpcMessage[], method: string): WireMessage[] {
  return (messages as WireMessage[]).filter((m) => m.method === method);
}

/**
 * The checks every lifecycle test makes on a transport end: at most one response per id, and
 * nothing handed to the transport after it was closed. The engine checks writability before every
 * write, so `sentAfterClose` must stay *empty* (not merely "only dropped writes"): a message that
 * meets a dead transport is dropped by the engine without being offered to it.
 */
export function expectCleanWire(side: RecordingTransport, forbiddenIds: readonly RequestId[] = []): void {
  expect(side.sentAfterClose, 'messages offered to a closed transport').toEqual([]);
  const seen = new Map<RequestId, number>();
  for (const message of side.sent as WireMessage[]) {
    if (!isResponse(message) || message.id === null || message.id === undefined) continue;
    seen.set(message.id, (seen.get(message.id) ?? 0) + 1);
  }
  for (const [id, count] of seen) expect(count, `responses for id ${JSON.stringify(id)}`).toBe(1);
  for (const id of forbiddenIds) {
    expect(responsesFor(side.sent, id), `response for peer-cancelled id ${JSON.stringify(id)}`).toEqual([]);
  }
}
