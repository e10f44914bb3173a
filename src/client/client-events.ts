/**
 * A tiny typed emitter for server notifications. A throwing listener is reported and never stops
 * the others (guarantee 9: one failure stays where it happened).
 */
import type { ElicitationCompleteParams } from '../core/types/elicitation.js';
import type { LoggingMessageParams } from '../core/types/logging.js';
import type { ResourceUpdatedParams } from '../core/types/resources.js';

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
 * A listener for event `E`.
 *
 * @example
 * const onLog: McpClientListener<'log'> = ({ level, data }) => console.error(`[${level}]`, data);
 * client.on('log', onLog);
 */
export type McpClientListener<E extends McpClientEventName> = (payload: McpClientEvents[E]) => void;

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
        (listener as McpClientListener<E>)(payload);
      } catch (error) {
        this.onListenerError(error, event);
      }
    }
  }

  /** Listener count for `event` (tests, leak checks). */
  listenerCount(event: McpClientEventName): number {
    return this.listeners.get(event)?.size ?? 0;
  }
}
