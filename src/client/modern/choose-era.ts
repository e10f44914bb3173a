/**
 * The era decision at `connect` (spec: versioning, "Backward Compatibility"): the `era` option,
 * the per-server cache, the `server/discover` probe, and the fallback to the legacy handshake.
 * The client applies the outcome; this module only decides.
 */
import type { Connection } from '../../core/engine/connection.js';
import type { RequestOptions } from '../../core/engine/outbound.js';
import { McpError } from '../../core/errors.js';
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

/**
 * Decide the era of a fresh connection, running the handshake when the answer is legacy. A
 * cached legacy server gets `initialize` at once; if that fails with a JSON-RPC error the cache
 * entry is dropped and the server probed again.
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
  const key = serverKeyOf(transport);
  // A forced legacy client learns nothing about the server: it leaves the cache alone.
  if (preference === 'legacy') return handshake().then(() => ({ era: 'legacy' }));
  const legacy = async (): Promise<EraChoice> => {
    await handshake();
    rememberEra(key, 'legacy');
    return { era: 'legacy' };
  };
  if (preference === 'auto' && cachedEra(key) === 'legacy') {
    try {
      return await legacy();
    } catch (error) {
      if (!(error instanceof McpError)) throw error;
      rememberEra(key, undefined);
    }
  }
  const session = new ModernSession(connection, input.facts, '2026-07-28');
  const timeoutMs = Math.min(
    input.discoverTimeoutMs ?? DEFAULT_DISCOVER_TIMEOUT_MS,
    options?.timeoutMs ?? Infinity,
  );
  const outcome = await probeEra(connection, (version) => session.meta(version), {
    signal: options?.signal,
    timeoutMs,
  });
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
