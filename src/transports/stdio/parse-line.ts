/**
 * One stdio line → one inbound item: a parsed JSON value, an {@link InboundFault}, or nothing.
 */
import { Buffer, isAscii, isUtf8 } from 'node:buffer';
import { ErrorCode } from '../../core/errors.js';
import { errorResponse, parseErrorReply } from '../../core/jsonrpc.js';
import { InboundFault } from '../../core/transport.js';

const CARRIAGE_RETURN = 13;
/**
 * How much of a line that is not JSON its fault keeps for a report, never for the wire:
 * characters, or bytes of a line that is not UTF-8.
 */
const EXCERPT_LENGTH = 200;
const BYTE_ORDER_MARK = 0xfeff;

/**
 * Decode and parse one line (without its `\n`). Returns `undefined` for a blank line, which is
 * skipped.
 *
 * @example
 * parseLine(Buffer.from('{"jsonrpc":"2.0","method":"ping","id":1}\r')); // { jsonrpc: '2.0', ... }
 * parseLine(Buffer.from('{oops')); // InboundFault with a -32700 reply
 */
export function parseLine(bytes: Uint8Array): unknown {
  let end = bytes.length;
  if (end > 0 && bytes[end - 1] === CARRIAGE_RETURN) end--;
  if (end === 0) return undefined;
  const buffer = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  let text: string;
  // Checked first: invalid UTF-8 must become a parse error, not U+FFFD silently smuggled into a
  // message. Most lines are pure ASCII, which needs no UTF-8 decoding at all. (A trailing `\r`
  // is ASCII, so checking the whole line is the same as checking the part kept.)
  if (isAscii(buffer)) text = buffer.toString('latin1', 0, end);
  else if (isUtf8(buffer)) {
    text = buffer.toString('utf8', 0, end);
    // A byte order mark is not part of the message (TextDecoder, used before, dropped it too).
    if (text.charCodeAt(0) === BYTE_ORDER_MARK) text = text.slice(1);
  } else {
    return new InboundFault(
      errorResponse(null, ErrorCode.ParseError, 'Parse error: message is not valid UTF-8'),
      buffer.toString('utf8', 0, Math.min(end, EXCERPT_LENGTH)),
    );
  }
  return parseText(text);
}

/** The decoded line (without `\r`) as a JSON value, `undefined` when blank, else a parse fault. */
function parseText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // Only now pay for a trim: whitespace-only lines are blank, not broken.
    return text.trim() === ''
      ? undefined
      : new InboundFault(parseErrorReply(), text.slice(0, EXCERPT_LENGTH));
  }
}

/**
 * {@link parseLine} for a line already known to be pure ASCII and decoded (one character per
 * byte): the same answers, without the byte checks.
 *
 * @example
 * parseAsciiLine('{"jsonrpc":"2.0","method":"ping","id":1}\r'); // { jsonrpc: '2.0', ... }
 * parseAsciiLine('{oops'); // InboundFault with a -32700 reply
 */
export function parseAsciiLine(line: string): unknown {
  let text = line;
  if (text.charCodeAt(text.length - 1) === CARRIAGE_RETURN) text = text.slice(0, -1);
  if (text.length === 0) return undefined;
  return parseText(text);
}

/**
 * The fault answered for a line over the size limit.
 *
 * @example
 * inbox.push(oversizeFault(4 * 1024 * 1024));
 */
export function oversizeFault(maxBytes: number): InboundFault {
  return new InboundFault(
    errorResponse(
      null,
      ErrorCode.InvalidRequest,
      `Invalid Request: message exceeds the ${maxBytes}-byte limit and was discarded`,
    ),
  );
}
