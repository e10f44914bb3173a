/**
 * The inbound side of the Streamable HTTP client transport: every message read from a response
 * (JSON body or SSE event) passes here, marks its request answered, teaches the transport the
 * negotiated version (from the `initialize` result), remembers which request's stream it came on,
 * and is queued for the engine.
 */
import { Inbox } from '../../../core/inbox.js';
import { isRequestId, type RequestId } from '../../../core/jsonrpc.js';
import type { MessageInfo } from '../../../core/transport.js';
import { HttpTransportError } from '../../../core/http-errors.js';
import { isObject, tryParseJson } from './http-body.js';
import type { HttpSession } from './http-session.js';
import type { OutboundTable } from './outbound-table.js';

/**
 * The queue of inbound messages of one transport.
 *
 * @example
 * const inbound = new InboundMessages(outbound, http, (error) => console.error(error));
 * inbound.deliver({ jsonrpc: '2.0', id: 1, result: {} });
 */
export class InboundMessages {
  readonly inbox = new Inbox<unknown>();
  /** Messages that came on a request's response stream, with the id of that request. */
  private readonly related = new WeakMap<object, MessageInfo>();

  constructor(
    private readonly outbound: OutboundTable,
    private readonly http: HttpSession,
    private readonly report: (error: unknown) => void,
  ) {}

  /** See `StreamableHttpClientTransport.messageInfo`. */
  info(message: object): MessageInfo | undefined {
    return this.related.get(message);
  }

  /** One SSE `message` event's data; `relatedRequestId` is the request whose stream it came on. */
  onEventData(data: string, relatedRequestId?: RequestId): void {
    const message = tryParseJson(data);
    if (message === undefined) this.report(new HttpTransportError('Dropped an SSE event that is not JSON'));
    else this.deliver(message, relatedRequestId);
  }

  /** Every inbound message passes here: it marks its request answered and learns the version. */
  deliver(message: unknown, relatedRequestId?: RequestId): void {
    if (relatedRequestId !== undefined && isObject(message)) this.related.set(message, { relatedRequestId });
    if (isObject(message) && message.method === undefined && isRequestId(message.id)) {
      const entry = this.outbound.get(message.id);
      if (entry) {
        entry.answered = true;
        const result = message.result;
        if (entry.initialize && isObject(result) && typeof result.protocolVersion === 'string') {
          this.http.version = result.protocolVersion;
        }
      }
    }
    this.inbox.push(message);
  }
}
