/**
 * The model behind the randomized-schedule test: a client Connection (A) calling a server
 * Connection (B) over an in-memory pair, driven by a step list that fast-check generates. Every
 * step is synchronous; only `tick` (a few microtask turns) and `flush` (all pending work) let the
 * engines run, so a step list is a deterministic interleaving and shrinks to a readable repro.
 */
import fc from 'fast-check';
import {
  Connection,
  type RequestContext,
  CancelledByPeerError,
  McpError,
  type JsonObject,
  type JsonRpcMessage,
  type RequestId,
} from 'keel-mcp/core';
import { Inbox } from '../../../src/core/inbox.js';
import { createRecordingPair, type RecordingTransport } from '../../helpers/recording-transport.js';
import { aborted, deferred, settle } from './raw-peer.js';

export type HandlerKind = 'deaf' | 'listening' | 'syncThrow' | 'syncReturn' | 'unknownMethod';
export type Action = 'return' | 'throwMcp' | 'throwPlain' | 'progress' | 'nested';
export type CloseKind = 'closeA' | 'closeB' | 'eofA' | 'eofB' | 'breakB';
export type Step =
  | { t: 'call'; kind: HandlerKind; onAbort: 'throw' | 'return'; progress: boolean; withSignal: boolean }
  | { t: 'act'; target: number; action: Action }
  | { t: 'abort'; target: number }
  | { t: 'rawCancel'; target: number; twice: boolean }
  | { t: 'badCancel'; requestId: unknown }
  | { t: 'lateResponse'; target: number }
  | { t: 'releaseAsks' }
  | { t: CloseKind }
  | { t: 'tick'; n: number }
  | { t: 'flush' };
export interface Config {
  answerOnClose: boolean;
  drainMs: number;
  releaseBeforeClose: boolean;
}

const target = fc.nat({ max: 15 });
export const stepArb: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      t: fc.constant('call' as const),
      kind: fc.constantFrom<HandlerKind>('deaf', 'listening', 'syncThrow', 'syncReturn', 'unknownMethod'),
      onAbort: fc.constantFrom<'throw' | 'return'>('throw', 'return'),
      progress: fc.boolean(),
      withSignal: fc.boolean(),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      t: fc.constant('act' as const),
      target,
      action: fc.constantFrom<Action>('return', 'throwMcp', 'throwPlain', 'progress', 'nested'),
    }),
  },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('abort' as const), target }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('rawCancel' as const), target, twice: fc.boolean() }) },
  {
    weight: 1,
    arbitrary: fc.record({
      t: fc.constant('badCancel' as const),
      requestId: fc.constantFrom(true, null, 999, '0', {}),
    }),
  },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('lateResponse' as const), target }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('releaseAsks' as const) }) },
  {
    weight: 1,
    arbitrary: fc.record({ t: fc.constantFrom<CloseKind>('closeA', 'closeB', 'eofA', 'eofB', 'breakB') }),
  },
  { weight: 3, arbitrary: fc.record({ t: fc.constant('tick' as const), n: fc.integer({ min: 1, max: 4 }) }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('flush' as const) }) },
);
export const configArb: fc.Arbitrary<Config> = fc.record({
  answerOnClose: fc.boolean(),
  drainMs: fc.constantFrom(0, 0, 10_000),
  releaseBeforeClose: fc.boolean(),
});

/** What happened to one outbound call of A. */
export interface CallRecord {
  index: number;
  step: Step & { t: 'call' };
  openAtCall: boolean;
  controller: AbortController | undefined;
  outcomes: { ok: boolean; value: unknown; seq: number }[];
  progressAfterSettle: number;
}

/** One inbound request handled by B ('work') or A ('ask'). */
export interface HandlerRecord {
  id: RequestId;
  finished: boolean;
  returned: boolean;
  threw: 'mcp' | 'plain' | 'reason' | undefined;
  /** Length of the handler side's `sent` when a peer cancel aborted it: no answer may follow. */
  cancelMark: number | undefined;
  nestedErrors: unknown[];
  signal: AbortSignal;
}

export class Schedule {
  readonly a: Connection;
  readonly b: Connection;
  readonly aSide: RecordingTransport;
  readonly bSide: RecordingTransport;
  readonly calls: CallRecord[] = [];
  readonly work = new Map<number, HandlerRecord>();
  readonly asks: HandlerRecord[] = [];
  readonly events: { t: string; target?: number | undefined; seq: number }[] = [];
  /** Messages the test wrote by hand (not the engines'). */
  readonly injected = new Set<JsonRpcMessage>();
  private readonly mailboxes: Inbox<Action>[] = [];
  private readonly askGate = deferred();
  seq = 0;
  /** Handlers still running after both ends closed, yet never aborted (must stay empty). */
  notAbortedAtClose: RequestId[] = [];

  constructor(readonly config: Config) {
    [this.aSide, this.bSide] = createRecordingPair();
    const requestDefaults = { timeoutMs: Infinity };
    this.a = new Connection(this.aSide, { requestDefaults });
    this.b = new Connection(this.bSide, {
      requestDefaults,
      answerOnClose: config.answerOnClose,
      drainMs: config.drainMs,
    });
    this.b.setRequestHandler('work', (params, ctx) => this.handleWork(params, ctx));
    this.a.setRequestHandler('ask', async (_params, ctx) => {
      const record = this.track(ctx, this.aSide);
      this.asks.push(record);
      try {
        await Promise.race([this.askGate.promise, aborted(ctx.signal)]);
        return { answered: true };
      } finally {
        record.finished = true;
      }
    });
    void this.a.start();
    void this.b.start();
  }

  private track(ctx: { id: RequestId; signal: AbortSignal }, side: RecordingTransport): HandlerRecord {
    const record: HandlerRecord = {
      id: ctx.id,
      finished: false,
      returned: false,
      threw: undefined,
      cancelMark: undefined,
      nestedErrors: [],
      signal: ctx.signal,
    };
    ctx.signal.addEventListener('abort', () => {
      if (ctx.signal.reason instanceof CancelledByPeerError) record.cancelMark = side.sent.length;
    });
    return record;
  }

  private handleWork(params: JsonObject, ctx: RequestContext): JsonObject | Promise<JsonObject> {
    const index = params.i as number;
    const call = this.calls[index]!;
    const record = this.track(ctx, this.bSide);
    this.work.set(index, record);
    if (call.step.kind === 'syncThrow') {
      record.finished = true;
      record.threw = 'plain';
      throw new Error('sync failure');
    }
    if (call.step.kind === 'syncReturn') {
      record.finished = true;
      record.returned = true;
      return { i: index, from: 'handler' };
    }
    const mailbox = this.mailboxes[index]!;
    const listening = call.step.kind === 'listening';
    const abort = listening ? aborted(ctx.signal).then(() => 'aborted' as const) : undefined;
    return (async (): Promise<JsonObject> => {
      let progress = 0;
      try {
        for (;;) {
          const next = abort ? await Promise.race([mailbox.next(), abort]) : await mailbox.next();
          if (next === 'aborted') {
            if (call.step.onAbort === 'return') return { i: index, from: 'afterAbort' };
            record.threw = 'reason';
            throw ctx.signal.reason;
          }
          switch (next.value) {
            case 'return':
              record.returned = true;
              return { i: index, from: ctx.signal.aborted ? 'afterAbort' : 'handler' };
            case 'throwMcp':
              record.threw = 'mcp';
              throw new McpError(4242, 'tool failed');
            case 'throwPlain':
              record.threw = 'plain';
              throw new Error('plain failure');
            case 'progress':
              await ctx.progress(++progress);
              break;
            default:
              await ctx
                .request('ask', { i: index })
                .catch((error: unknown) => record.nestedErrors.push(error));
          }
        }
      } finally {
        record.finished = true;
      }
    })();
  }

  private event(t: string, target?: number): void {
    this.events.push({ t, target, seq: this.seq });
  }

  private pick(target: number): CallRecord | undefined {
    return this.calls.length === 0 ? undefined : this.calls[target % this.calls.length];
  }

  /** A's id for call `index`, if the request reached the wire. */
  idOf(index: number): RequestId | undefined {
    const message = this.aSide.sent.find(
      (m) => 'method' in m && m.method === 'work' && (m.params as JsonObject).i === index,
    ) as { id: RequestId } | undefined;
    return message?.id;
  }

  private inject(side: RecordingTransport, message: JsonRpcMessage): void {
    if (!side.writable) return;
    this.injected.add(message);
    void side.send(message);
  }

  async run(steps: readonly Step[]): Promise<void> {
    for (const step of steps) {
      this.seq++;
      await this.apply(step);
    }
    this.seq++;
    this.event('final');
    if (this.config.releaseBeforeClose) this.releaseAll();
    await Promise.all([this.a.close(), this.b.close()]);
    this.notAbortedAtClose = [...this.work.values(), ...this.asks]
      .filter((handler) => !handler.finished && !handler.signal.aborted)
      .map((handler) => handler.id);
    this.releaseAll();
    await settle();
    await settle();
  }

  private releaseAll(): void {
    for (const mailbox of this.mailboxes) mailbox.push('return');
    this.askGate.resolve();
  }

  private async apply(step: Step): Promise<void> {
    switch (step.t) {
      case 'call':
        return this.call(step);
      case 'act':
        this.mailboxes[step.target % Math.max(1, this.mailboxes.length)]?.push(step.action);
        return;
      case 'abort': {
        const call = this.pick(step.target);
        if (!call?.controller) return;
        this.event('abort', call.index);
        call.controller.abort(new Error('caller gave up'));
        return;
      }
      case 'rawCancel': {
        const call = this.pick(step.target);
        const id = call === undefined ? undefined : this.idOf(call.index);
        if (id === undefined) return;
        for (let n = step.twice ? 2 : 1; n > 0; n--) {
          this.inject(this.aSide, {
            jsonrpc: '2.0',
            method: 'notifications/cancelled',
            params: { requestId: id },
          });
        }
        return;
      }
      case 'badCancel':
        return this.inject(this.aSide, {
          jsonrpc: '2.0',
          method: 'notifications/cancelled',
          params: { requestId: step.requestId },
        });
      case 'lateResponse': {
        const call = this.pick(step.target);
        const id = call === undefined ? undefined : this.idOf(call.index);
        if (call === undefined || id === undefined || !this.bSide.writable) return;
        this.event('lateResponse', call.index);
        return this.inject(this.bSide, { jsonrpc: '2.0', id, result: { i: call.index, from: 'late' } });
      }
      case 'releaseAsks':
        return this.askGate.resolve();
      case 'tick':
        for (let n = 0; n < step.n; n++) await Promise.resolve();
        return;
      case 'flush':
        return settle();
      default:
        return this.close(step.t);
    }
  }

  private call(step: Step & { t: 'call' }): void {
    const index = this.calls.length;
    const controller = step.withSignal ? new AbortController() : undefined;
    const record: CallRecord = {
      index,
      step,
      openAtCall: this.a.isOpen,
      controller,
      outcomes: [],
      progressAfterSettle: 0,
    };
    this.calls.push(record);
    this.mailboxes.push(new Inbox<Action>());
    const method = step.kind === 'unknownMethod' ? 'no/such/method' : 'work';
    const options = {
      signal: controller?.signal,
      onprogress: step.progress
        ? () => void (record.outcomes.length > 0 && record.progressAfterSettle++)
        : undefined,
    };
    this.a.request(method, { i: index }, options).then(
      (value) => void record.outcomes.push({ ok: true, value, seq: this.seq }),
      (error: unknown) => void record.outcomes.push({ ok: false, value: error, seq: this.seq }),
    );
  }

  private close(kind: CloseKind): void {
    this.event(kind);
    if (kind === 'closeA') void this.a.close();
    else if (kind === 'closeB') void this.b.close();
    else if (kind === 'eofA') this.aSide.endInput();
    else if (kind === 'eofB') this.bSide.endInput();
    else this.bSide.breakOutput();
  }

  /** True if an event of one of `types` (for `index`, when given) happened at or before `seq`. */
  happened(types: readonly string[], seq: number, index?: number): boolean {
    return this.events.some(
      (e) =>
        types.includes(e.t) &&
        e.seq <= seq &&
        (index === undefined || e.target === undefined || e.target === index),
    );
  }
}
