/**
 * Server notifications → typed client events. Malformed payloads are dropped (a notification
 * cannot be answered), never passed on half-formed.
 */
import type { JsonObject } from '../core/jsonrpc.js';
import type { LoggingMessageParams } from '../core/types/logging.js';
import type { Client } from './client.js';
import type { ClientEmitter } from './client-events.js';
import type { OutputSchemaCache } from './output-schemas.js';
import type { CachedResults } from './cache/cached-results.js';

/** Route the server's notifications on `client` to `events`, and drop what they make stale. */
export function bindNotifications(
  client: Client,
  events: ClientEmitter,
  outputSchemas: OutputSchemaCache,
  cache: CachedResults | undefined,
): void {
  client.setNotificationHandler('notifications/tools/list_changed', () => {
    // A changed tool may have a changed output schema: never validate against a stale one.
    outputSchemas.clear();
    cache?.listChanged(['tools/list']);
    events.emit('toolsChanged', undefined);
  });
  client.setNotificationHandler('notifications/resources/list_changed', () => {
    cache?.listChanged(['resources/list', 'resources/templates/list']);
    events.emit('resourcesChanged', undefined);
  });
  client.setNotificationHandler('notifications/prompts/list_changed', () => {
    cache?.listChanged(['prompts/list']);
    events.emit('promptsChanged', undefined);
  });
  client.setNotificationHandler('notifications/resources/updated', (params: JsonObject) => {
    if (typeof params.uri !== 'string') return;
    cache?.resourceUpdated(params.uri);
    events.emit('resourceUpdated', { ...params, uri: params.uri });
  });
  client.setNotificationHandler('notifications/message', (params: JsonObject) => {
    if (typeof params.level === 'string' && 'data' in params)
      events.emit('log', params as LoggingMessageParams);
  });
  client.setNotificationHandler('notifications/elicitation/complete', (params: JsonObject) => {
    if (typeof params.elicitationId === 'string') {
      events.emit('elicitationComplete', { elicitationId: params.elicitationId });
    }
  });
}
