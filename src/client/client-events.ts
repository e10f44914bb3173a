/**
 * A tiny typed emitter for server notifications. A listener that throws, or an async listener
 * whose promise rejects, is reported and never stops the others nor becomes an
 * `unhandledRejection` (guarantee 9: one failure stays where it happened).
 */
import { isThenable } from '../core/engine/thenable.js';
import type { ElicitationCompleteParams } from '../core/types/elicitation.js';
import type { LoggingMessageParams } from '../core/types/logging.js';
import type { ResourceUpdatedParams } from '../core/types/resources.js';
import type { ProtocolViolationError } from './errors.js';
import type { SessionReset } from './session-renewal.js';

/**
 * Events of an `McpClient`, with their payloads.
 *
 * @example
 * const off = client.on('toolsChanged', () => void refresh());
 * off();
 */
export interface McpClientEvents {
  /** `notifications/tools/list_changed` (the cached output schemas are dropped first). */
  toolsChanged: undefined;
  /** `notifications/resources/list_changed`. */
  resourcesChanged: undefined;
  /** `notifications/prompts/list_changed`. */
  promptsChanged: undefined;
  /** `notifications/resources/updated` for a subscribed resource. */
  resourceUpdated: ResourceUpdatedParams;
  /** `notifications/message` (server log). */
  log: LoggingMessageParams;
  /** `notifications/elicitation/complete` (URL-mode elicitation finished out of band). */
  elicitationComplete: ElicitationCompleteParams;
  /** The connection ended (any cause). Fires once per connection. */
  close: undefined;
  /**
   * Streamable HTTP: the server had forgotten our session (404) and a new one replaced it. What
   * the server kept per session is gone: subscribe again, set the log level again.
   */
  sessionReset: SessionReset;
  /**
   * The server broke the protocol in a way the client tolerates: it sent something that is not a
   * JSON-RPC message (a stdio server's `console.log` text or a stray object on stdout). Ignored,
   * and reported once per connection (also to the connection logger's `error`).
   */
  protocolError: ProtocolViolationError;
  /**
   * A listener of `event` threw or rejected. Also passed to the connection logger's `error`; a
   * failing `error` listener goes to the logger only.
   */
  error: McpClientListenerError;
}

/**
 * Payload of the `error` event.
 *
 * @example
 * client.on('error', ({ error, event }) => console.error(`${event} listener failed`, error));
 */
export interface McpClientListenerError {
  error: unknown;
  /** The event whose listener failed. */
  event: McpClientEventName;
}

/**
 * The name of an {@link McpClientEvents} event.
 *
 * @example
 * const events: McpClientEventName[] = ['toolsChanged', 'resourcesChanged', 'promptsChanged'];
 * for (const event of events) client.on(event, () => console.error(`${event}: refresh the cache`));
 */
export type McpClientEventName = keyof McpClientEvents;

/**
 * A listener for event `E`. It may be async: a rejection is caught and reported like a throw (the
 * return type is `unknown`, not `void`, so that type-aware linters accept an async listener).
 *
 * @example
 * const onLog: McpClientListener<'log'> = ({ level, data }) => console.error(`[${level}]`, data);
 * client.on('log', onLog);
 */
export type McpClientListener<E extends McpClientEventName> = (payload: McpClientEvents[E]) => unknown;

/**
 * @example
 * const events = new ClientEmitter((e) => console.error(e));
 * const off = events.on('log', (m) => console.error(m.data));
 * events.emit('log', { level: 'info', data: 'hi' });
 */
export class ClientEmitter {
  private readonly listeners = new Map<McpClientEventName, Set<(payload: never) => void>>();

  constructor(private readonly onListenerError: (error: unknown, event: McpClientEventName) => void) {}

  /** Add a listener; returns a function that removes it. */
  on<E extends McpClientEventName>(event: E, listener: McpClientListener<E>): () => void {
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    const stored = listener as (payload: never) => void;
    set.add(stored);
    return () => void set.delete(stored);
  }

  emit<E extends McpClientEventName>(event: E, payload: McpClientEvents[E]): void {
    const set = this.listeners.get(event);
    if (!set) return;
    for (const listener of [...set]) {
      try {
        const returned = (listener as McpClientListener<E>)(payload);
        // An async listener fails later: catch that too, or it becomes an unhandledRejection.
        if (isThenable(returned)) returned.then(undefined, (error: unknown) => this.failed(error, event));
      } catch (error) {
        this.failed(error, event);
      }
    }
  }

  private failed(error: unknown, event: McpClientEventName): void {
    try {
      this.onListenerError(error, event);
    } catch {
      // The reporting hook is the last resort; it must not break the emitter either.
    }
    // A failing `error` listener is not reported to the `error` listeners again (no loop).
    if (event !== 'error') this.emit('error', { error, event });
  }

  /** Listener count for `event` (tests, leak checks). */
  listenerCount(event: McpClientEventName): number {
    return this.listeners.get(event)?.size ?? 0;
  }
}
