/**
 * How a client sends requests once it speaks 2026-07-28 with a server: the per-request `_meta`
 * on every request, one retry with a shared version when the server refuses ours (`-32022`), and
 * the `input_required` loop. There is no handshake and nothing to renew: each request stands alone.
 */
import type { Connection } from '../../core/engine/connection.js';
import type { RequestHandler } from '../../core/engine/connection-types.js';
import type { RequestOptions } from '../../core/engine/outbound.js';
import { ErrorCode } from '../../core/errors.js';
import type { JsonObject } from '../../core/jsonrpc.js';
import type { ClientCapabilities } from '../../core/types/capabilities.js';
import type { Implementation } from '../../core/types/common.js';
import type { LoggingLevel } from '../../core/types/logging.js';
import type { ModernProtocolVersion } from '../../core/types/modern.js';
import { isRecognisedModernError, sharedVersion, supportedList } from './era.js';
import { requestWithInput, type InputLoopHost } from './input-loop.js';
import { modernMeta, toModernCapabilities, withModernMeta } from './request-meta.js';

/**
 * What the session reads from its client at send time (capabilities may be refined after connect).
 *
 * @example
 * const source: ModernClientFacts = { capabilities: () => client.capabilities, clientInfo: info, logLevel: () => undefined, handler: (m) => undefined, maxInputRounds: 8 };
 */
export interface ModernClientFacts {
  capabilities(): ClientCapabilities;
  readonly clientInfo: Implementation;
  logLevel(): LoggingLevel | undefined;
  handler(method: string): RequestHandler | undefined;
  readonly maxInputRounds: number;
}

/**
 * The modern side of a connected `Client`.
 *
 * @example
 * const session = new ModernSession(connection, facts, '2026-07-28');
 * const tools = await session.request('tools/list', {});
 */
export class ModernSession {
  private readonly loop: InputLoopHost;

  constructor(
    private readonly connection: Connection,
    private readonly facts: ModernClientFacts,
    /** The version sent per request; a `-32022` naming another shared one moves it. */
    public version: ModernProtocolVersion,
  ) {
    this.loop = {
      send: (method, params, options) => this.send(method, params, options),
      handler: (method) => facts.handler(method),
      maxRounds: facts.maxInputRounds,
    };
  }

  /** The `_meta` keys of a request sent now, at `version`. */
  meta(version: string = this.version): JsonObject {
    return modernMeta({
      protocolVersion: version,
      capabilities: toModernCapabilities(this.facts.capabilities()),
      clientInfo: this.facts.clientInfo,
      logLevel: this.facts.logLevel(),
    });
  }

  /** A request with its `input_required` rounds run to the end. */
  request(
    method: string,
    params: JsonObject | undefined,
    options: RequestOptions | undefined,
  ): Promise<JsonObject> {
    return requestWithInput(this.loop, method, params, options);
  }

  /** One round trip with the modern `_meta`; one retry when the server names a version we share. */
  private async send(
    method: string,
    params: JsonObject | undefined,
    options: RequestOptions | undefined,
  ): Promise<JsonObject> {
    try {
      return await this.connection.request(method, withModernMeta(params, this.meta()), options);
    } catch (error) {
      if (!isRecognisedModernError(error) || error.code !== ErrorCode.UnsupportedProtocolVersion) throw error;
      const shared = sharedVersion(supportedList(error.data as JsonObject) ?? []);
      if (shared === undefined || !('modern' in shared)) throw error;
      this.version = shared.modern;
      return this.connection.request(method, withModernMeta(params, this.meta()), options);
    }
  }
}
