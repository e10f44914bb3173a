/**
 * The engine's writes: never throw, never reject, never offer a message to a dead transport.
 */
import type { JsonRpcMessage, RequestId } from '../jsonrpc.js';
import type { Transport } from '../transport.js';
import type { Logger } from './connection-types.js';

/** Writes for one connection. `stopped` is set once teardown has closed the write side. */
export class WireWriter {
  stopped = false;
  /** The last promise a fire-and-forget write got from the transport (see `post`). */
  private lastSent: Promise<void> | undefined;
  private readonly onWriteFailed: (error: unknown) => void;

  constructor(
    private readonly transport: Transport,
    private readonly logger: Logger,
  ) {
    this.onWriteFailed = writeFailureHandler(logger);
  }

  /** False once nothing may be written any more. */
  get open(): boolean {
    return !this.stopped && this.transport.writable;
  }

  /**
   * Write without handing a promise back (answers, fault replies). Transports that batch return
   * one promise for every message of a batch; its failure needs handling once, not per message.
   */
  post(message: JsonRpcMessage, relatedRequestId?: RequestId): void {
    if (!this.open) {
      this.logger.debug('dropped a write: transport closed', message);
      return;
    }
    try {
      const sent = this.transport.send(
        message,
        relatedRequestId === undefined ? undefined : { relatedRequestId },
      );
      if (sent !== this.lastSent) {
        this.lastSent = sent;
        sent.then(undefined, this.onWriteFailed);
      }
    } catch (error) {
      // A transport that throws instead of rejecting must not crash whoever wrote.
      this.onWriteFailed(error);
    }
  }

  /** Write and hand back a promise that settles (never rejects) once the transport took it. */
  write(message: JsonRpcMessage, relatedRequestId?: RequestId): Promise<void> {
    if (!this.open) {
      this.logger.debug('dropped a write: transport closed', message);
      return Promise.resolve();
    }
    try {
      return this.transport
        .send(message, relatedRequestId === undefined ? undefined : { relatedRequestId })
        .then(undefined, this.onWriteFailed);
    } catch (error) {
      this.onWriteFailed(error);
      return Promise.resolve();
    }
  }
}

const failureHandlers = new WeakMap<Logger, (error: unknown) => void>();

/**
 * The rejection handler of writes, one per logger rather than one per write or per connection:
 * the connections of a server share their logger (memory per idle HTTP session).
 */
function writeFailureHandler(logger: Logger): (error: unknown) => void {
  let handler = failureHandlers.get(logger);
  if (!handler) {
    handler = (error: unknown): void => logger.debug('dropped a write: transport failed', error);
    failureHandlers.set(logger, handler);
  }
  return handler;
}
