/**
 * Client-side errors for answers that break the protocol. They are detected here, not sent by the
 * server, so they are {@link LocalError}s (guarantee 13: never confused with a peer's wire error).
 */
import { LocalError } from '../core/errors.js';

/**
 * The server answered, but the answer breaks the protocol (a malformed result, a cursor loop).
 *
 * @example
 * try { await client.listAllTools(); } catch (e) { if (e instanceof ProtocolViolationError) report(e.message); }
 */
export class ProtocolViolationError extends LocalError {
  override name = 'ProtocolViolationError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/**
 * A tool with an `outputSchema` returned no `structuredContent`, or content that does not match
 * the schema. `result` is the raw result, for callers that want it anyway.
 *
 * @example
 * catch (e) { if (e instanceof ToolOutputValidationError) console.error(e.toolName, e.issues); }
 */
export class ToolOutputValidationError extends ProtocolViolationError {
  override name = 'ToolOutputValidationError';
  constructor(
    readonly toolName: string,
    message: string,
    /** Human-readable validation issues (`/path: problem`). */
    readonly issues: string[],
    readonly result: unknown,
  ) {
    super(message);
  }
}
