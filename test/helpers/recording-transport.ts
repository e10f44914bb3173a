/**
 * A memory transport that records what it was asked to send, for tests that inspect the wire.
 * The recording lives here, not in `MemoryTransport`: a public transport must not keep every
 * message it ever sent.
 */
import type { JsonRpcMessage, SendOptions } from 'keel-mcp/core';
import { MemoryTransport } from 'keel-mcp/memory';

export class RecordingTransport extends MemoryTransport {
  /** Every message this end wrote while it was writable. */
  readonly sent: JsonRpcMessage[] = [];
  /** Messages `send` was asked to write after this end was closed or broken (should stay empty). */
  readonly sentAfterClose: JsonRpcMessage[] = [];

  override send(message: JsonRpcMessage, options?: SendOptions): Promise<void> {
    (this.writable ? this.sent : this.sentAfterClose).push(message);
    return super.send(message, options);
  }
}

/** Two linked recording transports (see `createMemoryPair`). */
export function createRecordingPair(): [RecordingTransport, RecordingTransport] {
  const a = new RecordingTransport();
  const b = new RecordingTransport();
  MemoryTransport.link(a, b);
  return [a, b];
}
