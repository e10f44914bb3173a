/**
 * The HTTP side of the resource server (`HttpHandlerOptions.auth`): the bearer check of every MCP
 * request before its body is read, the per-method scope check after, and whose a session is.
 */
import type { AuthInfo } from '../../core/auth.js';
import type { Logger } from '../../core/engine/connection.js';
import { ErrorCode } from '../../core/errors.js';
import type { JsonObject, RequestId } from '../../core/jsonrpc.js';
import { ResourceGuard, type AuthRefusal } from '../../server/auth/guard.js';
import type { ResourceServerOptions } from '../../server/auth/options.js';
import { principalOf } from '../../server/modern/back-channel.js';
import type { Connectable } from '../../server/server.js';
import { JSON_HEADERS } from '../../transports/http/server-wire/responses.js';
import type { HttpExchange, HttpReply } from '../../transports/http/server-wire/types.js';

/**
 * The auth checks of one handler; absent when `auth` is not set.
 *
 * @example
 * const gate = new AuthGate(options.auth, target, logger);
 * const checked = await gate.authenticate(exchange);
 */
export class AuthGate {
  private readonly guard: ResourceGuard;
  private readonly lookup:
    | ((method: string, params: JsonObject | undefined, auth: AuthInfo) => readonly string[] | undefined)
    | undefined;

  constructor(
    options: ResourceServerOptions,
    target: Connectable,
    private readonly logger: Logger,
  ) {
    this.guard = new ResourceGuard(options);
    this.lookup = target.requiredScopes?.bind(target);
  }

  /** The verified caller, or the reply refusing the request. */
  async authenticate(exchange: HttpExchange): Promise<AuthInfo | HttpReply> {
    const checked = await this.guard.authenticate(exchange.header('authorization'), this.logger, {
      method: exchange.method,
      dpop: exchange.header('dpop'),
    });
    return 'refusal' in checked ? refusalReply(checked.refusal) : checked.auth;
  }

  /** 403 when `auth` lacks a scope the request's tool, resource or prompt was registered with. */
  scopeRefusal(
    auth: AuthInfo,
    method: string,
    params: JsonObject | undefined,
    id: RequestId,
  ): HttpReply | undefined {
    const refusal = this.guard.scopeRefusal(auth, this.lookup?.(method, params, auth));
    return refusal && refusalReply(refusal, id);
  }
}

/**
 * The owner a new session gets: the verified principal (see `principalOf`), or undefined.
 *
 * @example
 * transport.owner = sessionOwner(auth);
 */
export function sessionOwner(auth: AuthInfo | undefined): string | undefined {
  return principalOf(auth);
}

/**
 * A session belongs to the principal whose token created it: with auth on, a request for it with
 * another principal's token is answered like an unknown session (404), so a stolen session id is
 * useless and does not even confirm that the session exists. A session without an owner belongs
 * to no authenticated caller (two identity-less tokens must not share one).
 *
 * @example
 * if (!ownedBy(found, auth)) return SESSION_NOT_FOUND;
 */
export function ownedBy(
  session: { readonly owner: string | undefined },
  auth: AuthInfo | undefined,
): boolean {
  if (auth === undefined) return true;
  return session.owner !== undefined && session.owner === principalOf(auth);
}

function refusalReply(refusal: AuthRefusal, id?: RequestId): HttpReply {
  const code = refusal.status >= 500 ? ErrorCode.InternalError : ErrorCode.InvalidRequest;
  const error = { code, message: refusal.message };
  const body = JSON.stringify(id === undefined ? { jsonrpc: '2.0', error } : { jsonrpc: '2.0', id, error });
  const headers =
    refusal.wwwAuthenticate === undefined
      ? JSON_HEADERS
      : { ...JSON_HEADERS, 'www-authenticate': refusal.wwwAuthenticate, ...refusal.headers };
  return { status: refusal.status, headers, body };
}
