/**
 * Wiring a handler to its backplane: the tunnel (routing, relayed exchanges, the relay's
 * lifetime) and, with sessions on, the session records its session manager keeps.
 */
import type { Logger } from '../../../core/engine/connection.js';
import type { Connectable } from '../../../server/server.js';
import {
  DEFAULT_IDLE_MS,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_RELAY_CHECK_MS,
  type HttpHandlerOptions,
} from '../options.js';
import { clientLimitsOf } from '../client-quota.js';
import type { SessionManager } from '../session-manager.js';
import type {
  HttpExchange,
  HttpReply,
  HttpRequestExtra,
} from '../../../transports/http/server-wire/types.js';
import { SessionRecords } from './session-records.js';
import { Tunnel } from './tunnel.js';

/**
 * The handler's tunnel when `options.backplane` is set (undefined otherwise); gives `manager`
 * its session records when sessions are on.
 *
 * @example
 * this.tunnel = attachBackplane(server, options, manager, logger, (exchange, extra) => this.serve(exchange, extra, false));
 */
export function attachBackplane(
  target: Connectable,
  options: HttpHandlerOptions,
  manager: SessionManager,
  logger: Logger,
  /** The handler core without routing (how this process serves relayed exchanges). */
  serve: (exchange: HttpExchange, extra: HttpRequestExtra | undefined) => Promise<HttpReply>,
): Tunnel | undefined {
  const backplane = options.backplane;
  if (!backplane) return undefined;
  const tunnel = new Tunnel({
    backplane,
    logger,
    budget: manager.budget,
    maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    checkMs: Math.max(1, options.relayCheckMs ?? DEFAULT_RELAY_CHECK_MS),
    target,
    serve,
    adopter: options.sessions === false ? undefined : manager,
  });
  if (options.sessions !== false) {
    const sessions = options.sessions ?? {};
    const limits = {
      idleMs: Math.max(1, sessions.idleMs ?? DEFAULT_IDLE_MS),
      maxPerClient: clientLimitsOf(options).maxPerClient,
    };
    manager.records = new SessionRecords(
      backplane,
      limits,
      logger,
      () => tunnel.listen(),
      (id) => manager.recordLost(id),
    );
  }
  return tunnel;
}
