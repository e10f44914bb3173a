/**
 * Server interceptors: cross-cutting code (audit logs, policy, rate limits, telemetry) around
 * every inbound request and notification of a server, in both eras and on every transport. They
 * run in the request pipeline after the era of the request is decided and before the era serves it
 * (era/request-pipeline.ts), onion-style in registration order: the first registered is outermost.
 *
 * What an interceptor cannot do is break the lifecycle contract: the engine writes the one answer
 * of a request (or none once it was cancelled or its connection closed), so an interceptor that
 * ignores `call.signal` still cannot answer twice or write after close; and `next()` after the
 * request was aborted rejects with the abort reason without starting the handler.
 */
import type { AuthInfo } from '../core/auth.js';
import type { RequestContext } from '../core/engine/request-context.js';
import { ErrorCode, McpError } from '../core/error-classes.js';
import type { JsonObject, RequestId } from '../core/jsonrpc.js';
import type { MessageInfo } from '../core/transport.js';
import { isThenable, rejectWith } from '../core/engine/thenable.js';
import { isAuthInfo } from './auth/auth-info.js';
import type { ProtocolEra, ServerSession } from './server-session.js';

/**
 * One inbound request or notification as an interceptor sees it.
 *
 * @example
 * server.use(async (call, next) => {
 *   if (call.kind === 'request') console.error(call.method, call.auth?.subject);
 *   return next();
 * });
 */
export interface ServerCall {
  /** A request (answered with a result or error) or a notification (never answered). */
  readonly kind: 'request' | 'notification';
  readonly method: string;
  /**
   * The params the next interceptor (or the handler) gets, unless `next(params)` replaces them.
   * Includes `_meta` as the client sent it.
   */
  readonly params: JsonObject;
  /** `params._meta` as the client sent it (trace context, progress token, 2026-07-28 keys). */
  readonly meta: JsonObject | undefined;
  /** The JSON-RPC id of a request; undefined for a notification. */
  readonly id: RequestId | undefined;
  /** The era that serves the call: `legacy` (`initialize`) or `modern` (2026-07-28 `_meta`). */
  readonly era: 'legacy' | 'modern';
  /** The protocol version the call is served in, when known (before `initialize`: undefined). */
  readonly protocolVersion: string | undefined;
  /** The connection the call came on. */
  readonly session: ServerSession;
  /** The verified caller on a protected HTTP endpoint; undefined elsewhere (stdio, no `auth`). */
  readonly auth: AuthInfo | undefined;
  /** Transport facts (HTTP headers). */
  readonly info: MessageInfo | undefined;
  /**
   * A request's signal: aborts on the client's cancel, on disconnect and on shutdown (then no
   * answer is written, whatever the interceptor returns). Undefined for a notification.
   */
  readonly signal: AbortSignal | undefined;
  /** The engine's context of a request (undefined for a notification). */
  readonly context: RequestContext | undefined;
}

/**
 * Runs the rest of the chain (the next interceptor, at the end the handler) and resolves with its
 * result, or rejects with its error. `params` replaces the call's params for the rest of the chain.
 * Once per call: a second `next()` rejects (a handler never runs twice for one request). For a
 * notification it resolves with an empty object once the handler returned.
 *
 * @example
 * const redact: ServerInterceptor = (call, next: ServerNext) =>
 *   next({ ...call.params, arguments: { ...(call.params.arguments as object), password: undefined } });
 */
export type ServerNext = (params?: JsonObject) => Promise<JsonObject>;

/**
 * Wraps every inbound request and notification of a server (see {@link Server.use}). Return the
 * result (from `next()`, transformed, or your own to short-circuit), or throw a
 * {@link McpError} to answer with that error. For a notification the returned value is ignored;
 * not calling `next()` drops it.
 *
 * @example
 * const audit: ServerInterceptor = async (call, next) => {
 *   const started = performance.now();
 *   try {
 *     return await next();
 *   } finally {
 *     log.info({ method: call.method, ms: performance.now() - started, aborted: call.signal?.aborted });
 *   }
 * };
 * server.use(audit);
 */
export type ServerInterceptor = (call: ServerCall, next: ServerNext) => JsonObject | Promise<JsonObject>;

const EMPTY: JsonObject = Object.freeze({});

/** @internal The call object: one per intercepted message, facts computed on first read. */
export class InterceptedCall implements ServerCall {
  constructor(
    readonly kind: 'request' | 'notification',
    readonly method: string,
    public params: JsonObject,
    /** The era object serving the call. */
    private readonly served: ProtocolEra,
    readonly session: ServerSession,
    readonly info: MessageInfo | undefined,
    readonly context: RequestContext | undefined,
    /** A notification's delivery (undefined for a request: the era serves it). */
    private readonly deliver?: (params: JsonObject) => void | Promise<void>,
  ) {}

  get meta(): JsonObject | undefined {
    return this.context ? this.context.meta : (this.params._meta as JsonObject | undefined);
  }

  get id(): RequestId | undefined {
    return this.context?.id;
  }

  get signal(): AbortSignal | undefined {
    return this.context?.signal;
  }

  get auth(): AuthInfo | undefined {
    const authInfo = this.info?.authInfo;
    return isAuthInfo(authInfo) ? authInfo : undefined;
  }

  get era(): 'legacy' | 'modern' {
    return this.served.name;
  }

  get protocolVersion(): string | undefined {
    return this.served.versionOf(this.session, this.meta);
  }

  /** The end of the chain: the era serves the request, or the notification is delivered. */
  end(params: JsonObject): Promise<JsonObject> {
    const ctx = this.context;
    if (ctx === undefined) {
      try {
        return Promise.resolve(this.deliver!(params)).then(() => EMPTY);
      } catch (error) {
        return rejectWith(error);
      }
    }
    // After an abort the handler never starts: the request's own reason, as the engine has it.
    if (ctx.ended) return rejectWith(abortReason(ctx, this.method));
    // `next()` always returns a promise: an era that throws at once (an unknown method or tool)
    // rejects it, so an interceptor that chains on it sees the failure the same way.
    let result: JsonObject | Promise<JsonObject>;
    try {
      result = this.served.serve(this.session, params, ctx);
    } catch (error) {
      return rejectWith(error);
    }
    return isThenable(result) ? result : Promise.resolve(result);
  }
}

/**
 * @internal Run `call` through `interceptors` (outermost first), then its end. Always returns a
 * promise; never throws synchronously. A failure that is not a typed `McpError` is reported to the
 * server's `onerror` (once: `reportFailure` skips what the handler's own reporting already sent).
 */
export function runInterceptors(
  interceptors: readonly ServerInterceptor[],
  call: InterceptedCall,
): Promise<JsonObject> {
  const outcome = dispatch(interceptors, call, 0, call.params);
  const ctx = call.context;
  // Notifications: a failure is logged by the engine (it has no answer to carry it).
  if (ctx === undefined) return outcome;
  return outcome.catch((error: unknown) => {
    if (!(error instanceof McpError) && !ctx.ended) {
      call.session.server.reportFailure(error, {
        method: call.method,
        requestId: ctx.id,
        sessionId: call.session.id,
      });
    }
    throw error;
  });
}

/** Level `index` of the chain: that interceptor with its own `next`, or the end. */
function dispatch(
  interceptors: readonly ServerInterceptor[],
  call: InterceptedCall,
  index: number,
  params: JsonObject,
): Promise<JsonObject> {
  call.params = params;
  if (index === interceptors.length) return call.end(params);
  let called = false;
  const next: ServerNext = (replaced) => {
    if (called) {
      return rejectWith(
        new McpError(ErrorCode.InternalError, `Interceptor called next() twice for ${call.method}`),
      );
    }
    called = true;
    return dispatch(interceptors, call, index + 1, replaced ?? params);
  };
  try {
    const returned = interceptors[index]!(call, next);
    return isThenable(returned) ? returned : Promise.resolve(returned);
  } catch (error) {
    return rejectWith(error);
  }
}

/** Why `next()` refuses to start the handler: the request's own abort reason. */
function abortReason(ctx: RequestContext, method: string): unknown {
  const signal = ctx.signal;
  return signal.aborted
    ? signal.reason
    : new McpError(ErrorCode.InternalError, `${method} ended before its handler started`);
}
