/**
 * The era decision at `connect` (spec: versioning, "Backward Compatibility"): the `era` option,
 * the per-server cache, the `server/discover` probe, and the fallback to the legacy handshake,
 * all within `connect`'s one `timeoutMs`. The client applies the outcome; this module only decides.
 */
import type { Connection } from '../../core/engine/connection.js';
import type { RequestOptions } from '../../core/engine/outbound.js';
import { RequestAbortedError, RequestTimeoutError } from '../../core/errors.js';
import type { Transport } from '../../core/transport.js';
import { NotModernServerError } from '../errors.js';
import { DEFAULT_DISCOVER_TIMEOUT_MS, probeEra } from './detect-era.js';
import { cachedEra, rememberEra, serverKeyOf, type Discovered, type EraOption } from './era.js';
import { ModernSession, type ModernClientFacts } from './modern-session.js';

/**
 * What `connect` settled on: a modern session with the discover answer, or a completed handshake.
 *
 * @example
 * if (choice.era === 'modern') console.error(choice.discovered.supportedVersions);
 */
export type EraChoice = { era: 'modern'; session: ModernSession; discovered: Discovered } | { era: 'legacy' };

/**
 * How {@link chooseEra} reaches its client.
 *
 * @example
 * const input: EraInput = { preference: 'auto', facts, handshake: () => client.handshake(), discoverTimeoutMs: undefined };
 */
export interface EraInput {
  preference: EraOption;
  facts: ModernClientFacts;
  /** The legacy `initialize` + `initialized` exchange, filling the client's server facts. */
  handshake: () => Promise<void>;
  discoverTimeoutMs: number | undefined;
}

/** `setTimeout` fires after 1 ms for longer delays: a budget beyond it is no budget. */
const MAX_TIMER_DELAY = 2 ** 31 - 1;

/**
 * `connect`'s `timeoutMs` as one budget for everything `connect` sends (probe, `initialize`,
 * a re-probe), rather than a fresh allowance per request.
 */
class Budget {
  private readonly deadline: number | undefined;
  constructor(private readonly timeoutMs: number | undefined) {
    const bounded = timeoutMs !== undefined && Number.isFinite(timeoutMs) && timeoutMs <= MAX_TIMER_DELAY;
    this.deadline = bounded ? Date.now() + timeoutMs : undefined;
  }

  /** Milliseconds left (undefined: no budget). */
  remaining(): number | undefined {
    return this.deadline === undefined ? undefined : Math.max(0, this.deadline - Date.now());
  }

  get spent(): boolean {
    return this.remaining() === 0;
  }

  /** `work`, or a `RequestTimeoutError` once the budget is spent (`work` is then left to the close). */
  bound<T>(work: Promise<T>): Promise<T> {
    const left = this.remaining();
    if (left === undefined) return work;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const expiry = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new RequestTimeoutError(this.timeoutMs ?? 0)), left);
    });
    // `race` subscribes to `work` too: its late rejection (the connection closing) is handled.
    return Promise.race([work, expiry]).finally(() => clearTimeout(timer));
  }
}

/**
 * Decide the era of a fresh connection, running the handshake when the answer is legacy. A
 * cached legacy server gets `initialize` at once; if that fails for any reason but the caller's
 * abort, the cache entry is dropped and the server probed again. `options.timeoutMs` bounds the
 * whole decision (probe + `initialize`); a failure that says nothing about the era
 * ({@link EraDetectionError}, a timeout) caches nothing.
 *
 * @example
 * const choice = await chooseEra(connection, transport, input, { timeoutMs: 10_000 });
 */
export async function chooseEra(
  connection: Connection,
  transport: Transport,
  input: EraInput,
  options: Pick<RequestOptions, 'signal' | 'timeoutMs'> | undefined,
): Promise<EraChoice> {
  const { preference, handshake } = input;
  // A forced legacy client learns nothing about the server: it leaves the cache alone.
  if (preference === 'legacy') return handshake().then(() => ({ era: 'legacy' }));
  const budget = new Budget(options?.timeoutMs);
  return budget.bound(decide(connection, transport, input, options?.signal, budget));
}

async function decide(
  connection: Connection,
  transport: Transport,
  input: EraInput,
  signal: AbortSignal | undefined,
  budget: Budget,
): Promise<EraChoice> {
  const { preference, handshake } = input;
  const key = serverKeyOf(transport);
  const legacy = async (): Promise<EraChoice> => {
    await handshake();
    rememberEra(key, 'legacy');
    return { era: 'legacy' };
  };
  if (preference === 'auto' && cachedEra(key) === 'legacy') {
    try {
      return await legacy();
    } catch (error) {
      // The caller gave up, or the budget is gone: no more tries, and nothing learned.
      if (signal?.aborted || error instanceof RequestAbortedError || budget.spent) throw error;
      // "Re-probing if the cached assumption later fails" (spec): whatever the failure was.
      rememberEra(key, undefined);
    }
  }
  const session = new ModernSession(connection, input.facts, '2026-07-28');
  // A transport with a serverKey is HTTP: every request gets an answer, so silence is a failure
  // there, bounded by the budget alone (no timer of the probe's own racing it for the same
  // deadline: connect would fail with either error); elsewhere silence until `initialize` is a
  // legacy answer.
  const http = key !== undefined;
  const left = budget.remaining();
  const budgetOnly = left === undefined ? undefined : Infinity;
  const timeoutMs = http
    ? budgetOnly
    : Math.min(input.discoverTimeoutMs ?? DEFAULT_DISCOVER_TIMEOUT_MS, left ?? Infinity);
  const outcome = await probeEra(connection, (version) => session.meta(version), { signal, timeoutMs, http });
  if (outcome.era === 'legacy') {
    if (preference !== 'modern') return legacy();
    throw new NotModernServerError('The server did not answer server/discover as a 2026-07-28 server', {
      cause: outcome.reason,
    });
  }
  session.version = outcome.version;
  rememberEra(key, 'modern');
  return { era: 'modern', session, discovered: outcome.discovered };
}
