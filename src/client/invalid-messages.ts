/**
 * What the client says about output from the server that is no JSON-RPC message: a stdio server
 * that prints with `console.log`, or writes a stray object, to its stdout. The client tolerates it
 * (the engine answers or drops it and reads on), but such a server breaks stricter clients, so the
 * first one per connection is reported; the rest go to the debug log.
 */
import type { Logger } from '../core/engine/connection-types.js';
import { InboundFault } from '../core/transport.js';
import { ProtocolViolationError } from './errors.js';

/** Characters of the offending output shown in the report (escaped, so one line). */
const EXCERPT_CHARS = 80;

/**
 * The start of `text`, escaped as a JSON string (quotes, control characters, a lone surrogate):
 * safe to print on one line.
 *
 * @example
 * excerpt('Server listening\n'); // '"Server listening\\n"'
 */
export function excerpt(text: string): string {
  const cut = text.length > EXCERPT_CHARS;
  return JSON.stringify(cut ? text.slice(0, EXCERPT_CHARS) : text) + (cut ? '...' : '');
}

/** What the output was, for the report: its excerpt, or what the transport said of it. */
function describeItem(item: unknown): string {
  if (item instanceof InboundFault) {
    return item.excerpt !== undefined ? excerpt(item.excerpt) : `(${item.reply.error.message})`;
  }
  let text: string | undefined;
  try {
    text = JSON.stringify(item);
  } catch {
    // A value a transport made (not parsed JSON) may not serialise; say what it is instead.
  }
  return excerpt(text ?? String(item));
}

/**
 * The engine's `onInvalidMessage` hook for one connection: the first item becomes a
 * {@link ProtocolViolationError}, logged at `error` level and handed to `report`; later ones are
 * logged at `debug` level only.
 *
 * @example
 * const onInvalidMessage = invalidMessageReporter(logger, (error) => events.emit('protocolError', error));
 * new Connection(transport, { onInvalidMessage });
 */
export function invalidMessageReporter(
  logger: Logger | undefined,
  report: (error: ProtocolViolationError) => void,
): (item: unknown) => void {
  let reported = false;
  return (item) => {
    if (reported) {
      logger?.debug('ignored more output from the server that is not a JSON-RPC message', item);
      return;
    }
    reported = true;
    const error = new ProtocolViolationError(
      `The server sent output that is not a JSON-RPC message (ignored): ${describeItem(item)}. ` +
        "A stdio server's stdout must carry protocol messages only (log to stderr): other clients " +
        'may fail on this. Reported once per connection.',
    );
    // `report` first: a logger that throws must not keep the error from its listeners.
    report(error);
    logger?.error(error.message, error);
  };
}
