/**
 * The options of the low-level `Client`: capabilities, the era to speak (default `legacy` here,
 * `auto` in `McpClient`), the `server/discover` probe's wait, input rounds, engine options,
 * session renewal.
 */
import type { ConnectionOptions } from '../core/engine/connection.js';
import type { JsonObject } from '../core/jsonrpc.js';
import type { ProtocolVersion } from '../core/protocol-version.js';
import type { EraOption } from './modern/era.js';

/**
 * @example
 * new Client({ name: 'my-app', version: '1.0.0' }, { capabilities: { roots: { listChanged: true } } });
 */
export interface ClientOptions {
  capabilities?: JsonObject;
  /** Version to ask for in `initialize` (legacy era). Default: the latest supported. */
  protocolVersion?: ProtocolVersion | undefined;
  /**
   * `auto`: probe with `server/discover`, speak 2026-07-28 with a modern server and fall back to
   * `initialize` otherwise. `modern`: fail unless the server is modern. `legacy`: send
   * `initialize` at once. **Default here: `legacy`**, while `McpClient` defaults to `auto`: code
   * that drives this class sends its own methods and handles its own notifications, written for
   * the handshake (`ping`, `resources/subscribe`, pushed notifications), and would break if it
   * were switched to 2026-07-28 silently. `McpClient` knows what to send in each era.
   */
  era?: EraOption | undefined;
  /** How long the `server/discover` probe waits before taking the server for a legacy one. Default 5 s. */
  discoverTimeoutMs?: number | undefined;
  /** 2026-07-28: `input_required` answers one request may get before it fails. Default 8. */
  maxInputRounds?: number | undefined;
  connection?: ConnectionOptions | undefined;
  /**
   * When the server answers 404 for our session (Streamable HTTP), start a new session with the
   * same capabilities and client info, and resend the requests it refused. Default true.
   */
  renewSession?: boolean | undefined;
}
