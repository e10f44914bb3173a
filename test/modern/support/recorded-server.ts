/**
 * An McpServer with the hold tools, wrapped so a test sees every message the server's engine hands
 * to a transport (one transport per modern HTTP request), and every hold event, with bounded waits.
 */
import type { JsonObject, JsonRpcMessage, Transport } from 'keel-mcp/core';
import { McpServer, type Connectable } from 'keel-mcp/server';
import { within } from '../../helpers/guard.js';
import { registerHoldTools, type HoldEvent } from '../fixtures/hold-tools.mjs';

export class Recorded {
  /** Every message the server sent, on any connection, in order. */
  readonly sent: JsonRpcMessage[] = [];
  readonly events: HoldEvent[] = [];
  readonly server = new McpServer({ name: 'recorded', version: '1' }, { onerror: undefined });
  private waiters: { test: (event: HoldEvent) => boolean; resolve: (event: HoldEvent) => void }[] = [];

  constructor() {
    registerHoldTools(this.server, (event) => {
      this.events.push(event);
      this.waiters = this.waiters.filter((waiter) => !(waiter.test(event) && (waiter.resolve(event), true)));
    });
  }

  /** What serveHttp connects: the server, with each transport's `send` recorded. */
  get target(): Connectable {
    return {
      connect: (transport: Transport, options) => {
        const send = transport.send.bind(transport);
        transport.send = (message, sendOptions) => {
          this.sent.push(message);
          return send(message, sendOptions);
        };
        return this.server.connect(transport, options);
      },
    };
  }

  /** The first event (seen or to come) with this name and key. */
  event(event: HoldEvent['event'], key: string): Promise<HoldEvent> {
    const test = (e: HoldEvent): boolean => e.event === event && e.key === key;
    const seen = this.events.find(test);
    if (seen) return Promise.resolve(seen);
    return within(new Promise((resolve) => this.waiters.push({ test, resolve })), 5_000, `${event} ${key}`);
  }

  count(event: HoldEvent['event'], key: string): number {
    return this.events.filter((e) => e.event === event && e.key === key).length;
  }

  /** Messages sent for request `id`: its responses, and progress with `token`. */
  sentFor(id: number, token: string): JsonRpcMessage[] {
    return this.sent.filter((message) => {
      const m = message as unknown as JsonObject;
      if ('id' in m && m.id === id && !('method' in m)) return true;
      return m.method === 'notifications/progress' && (m.params as JsonObject).progressToken === token;
    });
  }
}
