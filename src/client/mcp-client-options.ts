/**
 * The options of `McpClient` (and `McpClientBase`): the era, the handlers for server→client
 * requests (sampling, elicitation, roots), output validation, engine options; and the options of
 * `connect`.
 */
import type { ConnectionOptions } from '../core/engine/connection.js';
import type { RequestOptions } from '../core/engine/outbound.js';
import type { ProtocolVersion } from '../core/protocol-version.js';
import type { Implementation } from '../core/types/common.js';
import type { ClientCapabilities } from '../core/types/capabilities.js';
import type { ClientCacheOptions } from './cache/cached-results.js';
import type { ClientOptions } from './client-options.js';
import type { ElicitationOptions } from './elicitation.js';
import type { JsonSchemaValidator } from './json-schema-validator.js';
import type { RootsSource } from './roots.js';
import type { SamplingHandler, SamplingOptions } from './sampling.js';

/**
 * @example
 * new McpClient({ name: 'app', version: '1.0.0' }, {
 *   sampling: async (params) => ({ role: 'assistant', content: { type: 'text', text: 'hi' }, model: 'm' }),
 *   elicitation: { form: async () => ({ action: 'accept', content: {} }), applyDefaults: true },
 *   roots: [{ uri: 'file:///work', name: 'work' }],
 * });
 */
export interface McpClientOptions {
  /**
   * Extra capabilities (`experimental`, ...). `sampling`, `elicitation` and `roots` are derived from
   * the handlers below; values given here only refine a declared one (e.g. `sampling.context`).
   * `elicitation.form.applyDefaults: true` is honoured like `elicitation.applyDefaults`.
   */
  capabilities?: ClientCapabilities;
  /** Version to ask for in `initialize` (legacy era). Default: the latest supported. */
  protocolVersion?: ProtocolVersion;
  /**
   * `auto` (the default here), `modern` or `legacy`: see docs/modern-era.md, "Client". Unlike the
   * low-level `Client` (default `legacy`), `McpClient` knows what to send in each era for every
   * helper, so it probes and takes 2026-07-28 whenever the server offers it.
   */
  era?: ClientOptions['era'];
  /** How long the `server/discover` probe of `era: 'auto'` waits. Default 5 s. */
  discoverTimeoutMs?: number;
  /** 2026-07-28: `input_required` answers one call may get before it fails. Default 8. */
  maxInputRounds?: number;
  /** Engine options (request timeouts, logger, ...). */
  connection?: ConnectionOptions;
  /**
   * Streamable HTTP: when the server answers 404 for our session, start a new one by itself (same
   * capabilities and client info), resend the requests the server refused, and emit
   * `sessionReset`. Default true; false leaves it to the caller (`SessionExpiredError`).
   */
  renewSession?: boolean;
  sampling?: SamplingHandler | SamplingOptions;
  elicitation?: ElicitationOptions;
  roots?: RootsSource;
  /** Check `structuredContent` against the tool's `outputSchema` from `tools/list`. Default true. */
  validateToolOutput?: boolean;
  /** The JSON Schema engine for that check. Default: `defaultJsonSchemaValidator`. */
  outputValidator?: JsonSchemaValidator;
  /**
   * 2026-07-28 caching hints (`ttlMs`, `cacheScope`) of lists and `resources/read`: honoured by
   * default with a store of this client's own; `false` turns caching off; see
   * {@link ClientCacheOptions} to share a store or name the caller. Legacy era: nothing cached.
   */
  cache?: false | ClientCacheOptions;
}

/**
 * Options of `connect`: bound the handshake.
 *
 * @example
 * await client.connect(transport, { timeoutMs: 10_000, signal: AbortSignal.timeout(15_000) });
 */
export type ConnectOptions = Pick<RequestOptions, 'signal' | 'timeoutMs'>;

/**
 * @example
 * const client = await McpClient.connect(transport, { info: { name: 'app', version: '1.0.0' } });
 */
export interface McpClientConnectOptions extends McpClientOptions, ConnectOptions {
  /** `clientInfo`. Default `{ name: 'keel-client', version: '0.1.0' }`. */
  info?: Implementation;
}
