/**
 * Facts about an inbound message ride on the message object itself, under a private,
 * non-enumerable key: they live exactly as long as the message. (A WeakMap keyed by messages kept
 * every request's objects alive through young-generation GCs — an old table holding young keys —
 * and made GC a quarter of the server's CPU under load.)
 */
import type { MessageInfo } from '../../../core/transport.js';

const INFO = Symbol('keel.http.messageInfo');

/**
 * Attach `info` to an inbound `message`.
 *
 * @example
 * tagMessage(message, info);
 * infoOf(message) === info; // true
 */
export function tagMessage(message: object, info: MessageInfo): void {
  // One descriptor for every message (not an object per request); emptied again at once, so it
  // never keeps the last request's facts alive.
  DESCRIPTOR.value = info;
  Object.defineProperty(message, INFO, DESCRIPTOR);
  DESCRIPTOR.value = undefined;
}

const DESCRIPTOR: PropertyDescriptor = { value: undefined, configurable: true };

/**
 * The facts attached to `message`, if any.
 *
 * @example
 * const headers = infoOf(message)?.headers;
 */
export function infoOf(message: object): MessageInfo | undefined {
  return (message as { [INFO]?: MessageInfo })[INFO];
}
