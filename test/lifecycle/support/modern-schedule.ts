/**
 * The model behind the modern randomized schedules: 2026-07-28 `tools/call` requests POSTed to
 * Keel's HTTP handler (fetch-style, in process: no sockets), whose handlers return at once, or
 * report progress and wait for a gate; and clients that close their response stream at random
 * moments (closing the stream is the cancel in 2026-07-28). Every message the server's engine hands
 * to a transport, and every handler event, goes into one ordered log.
 */
import fc from 'fast-check';
import type { JsonObject, JsonRpcMessage, Transport } from 'keel-mcp/core';
import { McpServer } from 'keel-mcp/server';
import { createHttpHandler, type HttpHandler } from 'keel-mcp/http';
import { meta, MODERN } from '../../modern/harness.js';
import { deferred, settle, type Deferred } from './raw-peer.js';

export type ModernStep =
  | { t: 'open'; gated: boolean; progress: boolean; stubborn: boolean }
  | { t: 'release'; target: number }
  | { t: 'closeStream'; target: number }
  | { t: 'tick'; n: number }
  | { t: 'settle' };

const target = fc.nat({ max: 9 });
export const modernStepArb: fc.Arbitrary<ModernStep> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      t: fc.constant('open' as const),
      gated: fc.boolean(),
      progress: fc.boolean(),
      stubborn: fc.boolean(),
    }),
  },
  { weight: 3, arbitrary: fc.record({ t: fc.constant('release' as const), target }) },
  { weight: 3, arbitrary: fc.record({ t: fc.constant('closeStream' as const), target }) },
  { weight: 3, arbitrary: fc.record({ t: fc.constant('tick' as const), n: fc.integer({ min: 1, max: 6 }) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('settle' as const) }) },
);

export type LogEntry =
  | { type: 'sent'; message: JsonRpcMessage }
  | { type: 'started'; i: number }
  | { type: 'aborted'; i: number; reason: string }
  | { type: 'returned'; i: number };

/** One request of a run, from the client's side. */
export interface ModernCall {
  readonly i: number;
  readonly controller: AbortController;
  readonly gate: Deferred<void>;
  closed: boolean;
  /** The body the client read (when it did not close first), or the read's failure. */
  received: Promise<string | undefined>;
}

export class ModernSchedule {
  readonly log: LogEntry[] = [];
  readonly calls: ModernCall[] = [];
  readonly server = new McpServer({ name: 'modern-schedule', version: '1' }, { onerror: undefined });
  readonly handler: HttpHandler;

  constructor() {
    this.server.tool(
      'work',
      {
        description: 'Returns at once, or reports progress and waits for its gate',
        input: {
          type: 'object',
          properties: {
            i: { type: 'integer' },
            gated: { type: 'boolean' },
            progress: { type: 'boolean' },
            stubborn: { type: 'boolean' },
          },
          required: ['i'],
        },
      },
      async ({ i, gated, progress, stubborn }, ctx) => {
        const index = i as number;
        this.log.push({ type: 'started', i: index });
        ctx.signal.addEventListener(
          'abort',
          () => this.log.push({ type: 'aborted', i: index, reason: (ctx.signal.reason as Error).name }),
          { once: true },
        );
        if (gated === true) {
          if (progress === true) await ctx.progress(0, 1);
          const gate = this.calls[index]!.gate.promise;
          // A stubborn handler ignores its abort and answers once its gate opens.
          const abort = new Promise<void>((resolve) =>
            ctx.signal.addEventListener('abort', () => resolve(), { once: true }),
          );
          await (stubborn === true ? gate : Promise.race([gate, abort]));
          if (progress === true) await ctx.progress(1, 1);
        }
        this.log.push({ type: 'returned', i: index });
        return `done ${index}`;
      },
    );
    const recordSends = (transport: Transport): Transport => {
      const send = transport.send.bind(transport);
      transport.send = (message, options) => {
        this.log.push({ type: 'sent', message });
        return send(message, options);
      };
      return transport;
    };
    this.handler = createHttpHandler({
      connect: (transport, options) => this.server.connect(recordSends(transport), options),
    });
  }

  async run(steps: readonly ModernStep[]): Promise<void> {
    for (const step of steps) {
      switch (step.t) {
        case 'open':
          this.open(step.gated, step.progress, step.stubborn);
          break;
        case 'release':
          this.calls[step.target % Math.max(1, this.calls.length)]?.gate.resolve();
          break;
        case 'closeStream': {
          const call = this.calls[step.target % Math.max(1, this.calls.length)];
          if (call) {
            call.closed = true;
            call.controller.abort();
          }
          break;
        }
        case 'tick':
          for (let k = 0; k < step.n; k++) await Promise.resolve();
          break;
        case 'settle':
          await settle();
          break;
      }
    }
    // Let every handler end: open every gate, then wait for every answer.
    for (const call of this.calls) call.gate.resolve();
    await Promise.all(this.calls.map((call) => call.received));
    for (let k = 0; k < 3; k++) await settle();
  }

  private open(gated: boolean, progress: boolean, stubborn: boolean): void {
    const i = this.calls.length;
    const controller = new AbortController();
    const body = {
      jsonrpc: '2.0',
      id: i,
      method: 'tools/call',
      params: {
        name: 'work',
        arguments: { i, gated, progress, stubborn },
        _meta: meta({ progressToken: `p${i}` }),
      },
    };
    const request = new Request('http://127.0.0.1/mcp', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': MODERN,
        'mcp-method': 'tools/call',
        'mcp-name': 'work',
      },
      body: JSON.stringify(body),
      signal: controller.signal,
    });
    const call: ModernCall = {
      i,
      controller,
      gate: deferred(),
      closed: false,
      received: Promise.resolve(undefined),
    };
    // A client that closed its stream reads nothing more; one that did not reads the whole answer.
    call.received = this.handler(request).then(
      (response) =>
        call.closed ? (void response.body?.cancel().catch(() => undefined), undefined) : response.text(),
      () => undefined,
    );
    this.calls.push(call);
  }

  /** Log entries about request `i`: what the engine sent for it (response, progress) and its handler events. */
  about(i: number): LogEntry[] {
    return this.log.filter((entry) => {
      if (entry.type !== 'sent') return entry.i === i;
      const m = entry.message as unknown as JsonObject;
      if ('method' in m)
        return m.method === 'notifications/progress' && (m.params as JsonObject).progressToken === `p${i}`;
      return m.id === i;
    });
  }
}
