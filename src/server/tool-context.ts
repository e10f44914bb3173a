/**
 * The context every McpServer handler (tool, resource, prompt, completion) receives.
 *
 * Dual-era design. In the legacy era a back-channel call (`elicit`, `createMessage`, `listRoots`)
 * is a server→client request; in the modern era (2026-07-28) it becomes an `input_required` round:
 * the server answers the call with the input requests and the client retries with the answers. The
 * context hides which: every back-channel call goes through one {@link InputChannel} and simply
 * returns a promise. A modern channel answers the request with `input_required` itself, then
 * aborts `signal` and rejects the pending call with that reason (so `finally` blocks run); on the
 * retry the handler runs again and the same call resolves from the supplied answers. The response
 * is decided by the channel before the handler sees anything, and a request is answered at most
 * once, so whatever a `try/catch` around `await ctx.elicit(...)` does afterwards (swallow, return,
 * rethrow) is ignored: user code can neither lose the round nor turn it into a wrong result. No
 * special exception is used for control flow. Everything else that differs between eras (who the
 * client is, which log messages go out, which failures become wire errors) is the request's
 * {@link HandlerRequest}: the context never asks which era it is in.
 */
import type { AuthInfo } from '../core/auth.js';
import { ContextClosedError, McpError, MissingClientCapabilityError } from '../core/errors.js';
import { extensionSettings } from '../core/extensions.js';
import type { JsonObject, RequestId } from '../core/jsonrpc.js';
import type { MessageInfo } from '../core/transport.js';
import type { ClientCapabilities } from '../core/types/capabilities.js';
import type { Implementation } from '../core/types/common.js';
import type { LoggingLevel } from '../core/types/logging.js';
import { isLoggingLevel } from '../core/types/logging.js';
import type { ListRootsResult } from '../core/types/roots.js';
import type { CreateMessageParams, CreateMessageResult } from '../core/types/sampling.js';
import {
  elicitForm,
  elicitUrl,
  type ElicitFormRequest,
  type ElicitOutcome,
  type ElicitUrlOutcome,
  type ElicitUrlRequest,
} from './elicit.js';
import type { SchemaInput } from '../core/schema/compile-schema.js';
import { isAuthInfo } from './auth/auth-info.js';
import type { HandlerFailure } from './handler-errors.js';
import type { HandlerRequest } from './handler-request.js';
import type { HandlerSession } from './handler-session.js';
import type { BackChannelOptions, InputChannel } from './input-channel.js';
import { logParams } from './logging.js';
import { InputRequiredSignal } from './modern/mrtr-errors.js';
import { isResourceNotFound } from './resource-not-found.js';
import type { ServerSession } from './server-session.js';
import type { TaskManager } from './tasks/task-manager.js';
import type { ContextRequest } from './tasks/task-request-context.js';
import type { TaskWire } from './tasks/task-wire.js';
import { HandlerState, type ServerState } from './state/handler-state.js';
import { principalOf } from './modern/back-channel.js';

/** What the context needs from the McpServer. */
export interface ContextServices {
  readonly defaultLogLevel: LoggingLevel;
  notifyResourceUpdated(uri: string): Promise<void>;
  /** Hand a failure of user code to the server's `onerror`. */
  reportFailure(error: unknown, failure: HandlerFailure): void;
  /** The server's tasks (made on first use). */
  readonly taskManager?: TaskManager;
  /** `ctx.state`'s store and bounds (issue 28). */
  readonly serverState?: ServerState;
}

/**
 * Handler context: cancellation, progress, logging and the client back-channel.
 *
 * @example
 * server.tool('slow', { description: 'Slow' }, async (_args, ctx) => {
 *   await ctx.progress(1, 2, 'halfway');
 *   await ctx.log('info', 'still going');
 *   if (ctx.signal.aborted) return 'stopped';
 *   return 'done';
 * });
 */
export class ToolContext {
  constructor(
    private readonly request: ContextRequest,
    private readonly serverSession: ServerSession,
    private readonly services: ContextServices,
    /** The request as its era presents it (client facts, log rules, wire errors). */
    private readonly handlerRequest: HandlerRequest,
    /** A 2026-07-28 request's input-round channel; undefined: back-channel calls are nested requests. */
    private readonly inputChannel?: InputChannel,
  ) {}

  private combined: AbortSignal | undefined;
  // `declare`: no slot until `ctx.state` is first used (one context per request).
  declare private handlerState: HandlerState | undefined;

  /** Legacy era (no channel given): a nested request, tied to this request's signal and routed with its id. */
  private get channel(): InputChannel {
    return this.inputChannel ?? this.request;
  }

  /**
   * Aborts on peer cancel, connection close, or shutdown; in 2026-07-28 also once the request was
   * answered with an `input_required` round (reason: `InputRequiredSignal`). The reason tells which.
   */
  get signal(): AbortSignal {
    const decided = this.inputChannel?.signal;
    if (decided === undefined) return this.request.signal;
    // 2026-07-28: also aborts once the request was answered with an input_required round, so the
    // handler's `finally` blocks and abortable work stop (it runs again on the retry).
    this.combined ??= AbortSignal.any([this.request.signal, decided]);
    return this.combined;
  }

  get requestId(): RequestId {
    return this.request.id;
  }

  /** The HTTP session id (undefined on stdio and memory; `session.id` is always set). */
  get sessionId(): string | undefined {
    return this.request.sessionId;
  }

  /**
   * The session this request belongs to: its id, the client's info, capabilities and protocol
   * version, and a `state` Map that lives as long as the session (the same object for every
   * request of it). On every transport; over stateless HTTP each request is its own session.
   */
  get session(): HandlerSession {
    return this.handlerRequest.session;
  }

  /** The request's `_meta`, if any. */
  get meta(): JsonObject | undefined {
    return this.request.meta;
  }

  /** Transport facts (HTTP headers, auth info). */
  get info(): MessageInfo | undefined {
    return this.request.info;
  }

  /**
   * The verified caller: set when the HTTP endpoint is protected (`auth` option; the resource
   * server's verification wins over anything the host passed), or when the host's own
   * authentication passed an {@link AuthInfo}-shaped `authInfo`. Undefined otherwise (stdio).
   * It never holds the access token.
   */
  get auth(): AuthInfo | undefined {
    const authInfo = this.request.info?.authInfo;
    return isAuthInfo(authInfo) ? authInfo : undefined;
  }

  /**
   * A small key-value store per session (`ctx.state.session`) and per principal
   * (`ctx.state.principal`), in memory or on Redis (McpServer's `state` option; docs/state.md).
   * Made on first use.
   *
   * @example
   * const calls = await ctx.state.principal.increment('calls');
   */
  get state(): HandlerState {
    return (this.handlerState ??= this.makeState());
  }

  private makeState(): HandlerState {
    const server = this.services.serverState;
    if (server === undefined) throw new Error('ctx.state is available to McpServer handlers');
    const session = this.serverSession;
    // Over HTTP a request carries headers: without a session id it has no lasting session (stateless).
    const http = this.request.info?.headers !== undefined;
    const sessionKey = this.handlerRequest.lastingSession
      ? (session.sessionId ?? (http ? undefined : session.id))
      : undefined;
    // Without authorization, stdio and memory connections have one local user; HTTP has nobody known.
    const principalKey = principalOf(this.request.info?.authInfo) ?? (http ? undefined : 'local');
    return new HandlerState(server, sessionKey, principalKey, (key) => server.watchSession(session, key));
  }

  /** What the client declared: at `initialize` (legacy), or in this request's `_meta` (2026-07-28). */
  get clientCapabilities(): ClientCapabilities {
    return this.handlerRequest.clientCapabilities;
  }

  /**
   * The settings the client declared for extension `id` (SEP-2133) for this request: at
   * `initialize` (legacy) or in this request's `_meta` (2026-07-28); undefined when it did not
   * declare it, so an extension falls back to core behaviour for that client.
   *
   * @example
   * if (ctx.clientExtension('io.modelcontextprotocol/ui') === undefined) return 'Plain-text summary';
   */
  clientExtension(id: string): JsonObject | undefined {
    return extensionSettings(this.handlerRequest.clientCapabilities, id);
  }

  get clientInfo(): Implementation | undefined {
    return this.handlerRequest.clientInfo;
  }

  /** Progress for the caller (sent only if it gave a progress token; dropped once the request ended). */
  progress(progress: number, total?: number, message?: string): Promise<void> {
    // A decided modern request takes nothing more (its answer may still be on its way out).
    if (this.inputChannel?.signal?.aborted === true) return Promise.resolve();
    return this.request.progress(progress, total, message);
  }

  /** A `notifications/message` on this request's stream, if the level passes the client's minimum. */
  log(level: LoggingLevel, data: unknown, logger?: string): Promise<void> {
    if (!isLoggingLevel(level)) return Promise.reject(new TypeError(`Invalid log level: ${String(level)}`));
    const allowed = this.handlerRequest.mayLog(level, this.request.meta, this.services.defaultLogLevel);
    if (!allowed || this.inputChannel?.signal?.aborted === true) return Promise.resolve();
    return this.request.notify('notifications/message', logParams(level, data, logger));
  }

  /** The client's roots (`roots/list`). */
  listRoots(options?: BackChannelOptions): Promise<ListRootsResult> {
    const declared = this.clientCapabilities.roots !== undefined;
    return this.ask('roots', declared, 'roots/list', {}, options) as Promise<ListRootsResult>;
  }

  /** Ask the client's model (`sampling/createMessage`); `tools` need the `sampling.tools` capability. */
  createMessage(params: CreateMessageParams, options?: BackChannelOptions): Promise<CreateMessageResult> {
    const sampling = this.clientCapabilities.sampling;
    // Tools need `sampling.tools`, checked once `sampling` itself is there.
    const tools = sampling !== undefined && (params.tools !== undefined || params.toolChoice !== undefined);
    return this.ask(
      tools ? 'sampling.tools' : 'sampling',
      tools ? sampling.tools !== undefined : sampling !== undefined,
      'sampling/createMessage',
      params,
      options,
    ) as Promise<CreateMessageResult>;
  }

  /**
   * A back-channel request once `capability` is checked. Not `async`: the channel's promise is
   * handed on as it is, without two more promise hops per call; a failed check (or anything
   * thrown) still rejects, never throws, as an async method would.
   */
  private ask(
    capability: string,
    declared: boolean,
    method: string,
    params: JsonObject,
    options: BackChannelOptions | undefined,
  ): Promise<unknown> {
    try {
      this.require(capability, declared);
      return this.channel.request(method, params, options);
    } catch (error) {
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
      return Promise.reject(error);
    }
  }

  /**
   * Ask the user for structured input (form mode). `schema` is a Standard Schema or a raw JSON
   * Schema of flat primitive properties; an accepted answer is validated against it.
   */
  async elicit<S extends SchemaInput>(
    request: ElicitFormRequest<S>,
    options?: BackChannelOptions,
  ): Promise<ElicitOutcome<S>> {
    const elicitation = this.clientCapabilities.elicitation;
    // An empty `elicitation: {}` means form mode only.
    const form =
      elicitation !== undefined && (elicitation.form !== undefined || elicitation.url === undefined);
    this.require('elicitation.form', form);
    return elicitForm(this.channel, request, options);
  }

  /**
   * Send the user to a URL (URL mode). Legacy: `complete()` later sends
   * `notifications/elicitation/complete`. 2026-07-28: no `elicitationId` on the wire and no
   * notification (the client retries to learn the outcome); see {@link elicitUrl}.
   */
  async elicitUrl(request: ElicitUrlRequest, options?: BackChannelOptions): Promise<ElicitUrlOutcome> {
    this.require('elicitation.url', this.clientCapabilities.elicitation?.url !== undefined);
    return elicitUrl(
      this.channel,
      this.serverSession,
      request,
      options,
      this.handlerRequest.elicitationComplete,
    );
  }

  /** Tell subscribed clients a resource changed. */
  notifyResourceUpdated(uri: string): Promise<void> {
    return this.services.notifyResourceUpdated(uri);
  }

  /**
   * Close this request's SSE stream now (Streamable HTTP with resumability): the client reconnects
   * with `Last-Event-ID` and gets the rest. A no-op on transports without that notion.
   */
  closeSSEStream(): void {
    this.request.info?.closeSSEStream?.();
  }

  /**
   * @internal Report a failure of user code under this request to the server's `onerror`, unless
   * the request was already aborted (the abort explains it).
   */
  failed(error: unknown, target?: string): void {
    // A capability the modern request lacked is the client's error (-32021), not a server failure.
    // Nor is anything after a modern channel decided the answer (an input round, a client's bad
    // answer): the handler rethrowing the signal or the -32602 does the right thing.
    if (
      this.request.ended ||
      error instanceof InputRequiredSignal ||
      // "No such resource" from a reader is the client's mistake, as for a URI nothing matches.
      isResourceNotFound(error) ||
      this.inputChannel?.signal?.aborted === true ||
      this.wireErrorFor(error) !== undefined
    )
      return;
    const failure: HandlerFailure = {
      method: this.request.method,
      requestId: this.request.id,
      sessionId: this.serverSession.id,
    };
    this.services.reportFailure(error, target === undefined ? failure : { ...failure, target });
  }

  /**
   * @internal The wire error a failure escaping a tool must become instead of an `isError` result:
   * in 2026-07-28 a capability the tool needed and the request lacked is `-32021`. Undefined in
   * the legacy era (see {@link MissingClientCapabilityError}).
   */
  wireErrorFor(error: unknown): McpError | undefined {
    return this.handlerRequest.wireErrorFor(error);
  }

  /** @internal The era's task wire for this request (tasks/task-wire.ts). */
  get taskWire(): TaskWire {
    return this.handlerRequest.tasks;
  }

  /** @internal The server's tasks, if it runs any. */
  get taskManager(): TaskManager | undefined {
    return this.services.taskManager;
  }

  /** @internal The request under this context (a task keeps its facts). */
  get requestContext(): ContextRequest {
    return this.request;
  }

  /** @internal The request as its era presents it. */
  get handlerRequestView(): HandlerRequest {
    return this.handlerRequest;
  }

  /** @internal The request's own back-channel, if it is not the legacy nested request. */
  get backChannel(): InputChannel | undefined {
    return this.inputChannel;
  }

  /** @internal This context for a task's run: the task's request, back-channel and view of the request. */
  forTask(request: ContextRequest, channel: InputChannel, handlerRequest: HandlerRequest): ToolContext {
    return new ToolContext(request, this.serverSession, this.services, handlerRequest, channel);
  }

  /**
   * @internal The refusal of a `tools/call` whose request headers disagree with its arguments
   * (2026-07-28 over HTTP: `Mcp-Param-*`), or undefined.
   */
  checkToolHeaders(inputSchema: JsonObject, args: JsonObject): McpError | undefined {
    return this.handlerRequest.checkToolHeaders(inputSchema, args, this.request.info);
  }

  private require(capability: string, declared: boolean): void {
    if (this.request.ended) throw new ContextClosedError();
    if (declared) return;
    const [head, tail] = capability.split('.') as [string, string | undefined];
    const reason = this.handlerRequest.noBackChannelReason;
    // Local, never -32021 on the wire: that code exists only in 2026-07-28 (see the error's JSDoc).
    throw new MissingClientCapabilityError(
      capability,
      { [head]: tail ? { [tail]: {} } : {} },
      reason === undefined ? undefined : `No "${capability}" back-channel: ${reason}`,
    );
  }
}

/**
 * The same context, under the name resource and prompt handlers use.
 *
 * @example
 * const read = async (uri: string, ctx: HandlerContext) => {
 *   await ctx.log('debug', `reading ${uri}`);
 *   return 'contents';
 * };
 * server.resource('notes', 'file:///notes.txt', {}, read);
 */
export type HandlerContext = ToolContext;
