/**
 * Server-wide notifications across the processes of one deployment (issue 12). A change raised on
 * one process (`notifyResourceUpdated`, a user's `Server.broadcast`) must reach the legacy
 * sessions and the 2026-07-28 `subscriptions/listen`s held by every other process. The server
 * joins a fan-out through a tiny {@link FanoutLink} (the HTTP handler builds it on its relay's
 * broadcast) and gets a {@link FanoutMembership} whose `receive` the host feeds with what the
 * others published.
 *
 * The origin delivers locally at once and publishes once; a receiver delivers locally only and
 * never republishes, so a message cannot loop. Registry `list_changed` never fans out (each
 * process lists its own registry), nor do per-session notifications (logging, progress).
 */
import type { Logger } from '../core/engine/connection-types.js';
import { containedLogger } from '../core/engine/connection.js';
import type { JsonObject } from '../core/jsonrpc.js';

/**
 * Largest fan-out message published or accepted: 1 MiB of UTF-8 JSON. A notification is a few
 * hundred bytes; the bound keeps a faulty or hostile peer from making every process parse
 * megabytes.
 *
 * @example
 * if (text.length > MAX_FANOUT_MESSAGE_BYTES) return; // too large for certain
 */
export const MAX_FANOUT_MESSAGE_BYTES = 1024 * 1024;

/**
 * How a server hands its server-wide notifications to the other processes: `publish` sends the
 * text to every *other* process (e.g. `relay.broadcast`). It may reject (medium down): the
 * server logs it, local delivery has already happened.
 *
 * @example
 * const link: FanoutLink = { publish: (message) => relay.broadcast(message) };
 */
export interface FanoutLink {
  publish(message: string): Promise<void>;
}

/**
 * A server's place in a fan-out. `receive` takes what another process published (anything that
 * is not a valid fan-out message is ignored with a debug log, never thrown); `leave` stops both
 * directions (idempotent).
 *
 * @example
 * const membership = server.joinFanout({ publish: (m) => relay.broadcast(m) });
 * await relay.listen({ message() {}, broadcast: (_from, text) => membership.receive(text) });
 * // shutdown:
 * membership.leave();
 */
export interface FanoutMembership {
  receive(message: string): void;
  leave(): void;
}

/**
 * The wire message (JSON text) between processes.
 *
 * @example
 * const message: FanoutMessage = { t: 'notify', method: 'notifications/resources/updated', params: { uri: 'a://x' } };
 */
export interface FanoutMessage {
  t: 'notify';
  method: string;
  params?: JsonObject;
}

/** Local delivery of a notification that came from another process. */
export type FanoutDeliver = (method: string, params: JsonObject | undefined) => Promise<void>;

const silent: Logger = { debug() {}, error() {} };

/**
 * The fan-out of one server: its memberships, publishing and receiving. Owned by `Server`.
 *
 * A server that joined several times (one server behind several handlers of one deployment, as
 * in tests) counts as one process: it publishes and receives through its oldest membership only;
 * the others stand by (each would otherwise send and receive every message again) and take over
 * when it leaves.
 *
 * @example
 * const fanout = new Fanout((method, params) => deliverHere(method, params));
 * const membership = fanout.join(link);
 * await fanout.publish('notifications/resources/updated', { uri: 'a://x' });
 */
export class Fanout {
  private readonly members: Member[] = [];

  constructor(
    private readonly deliver: FanoutDeliver,
    private readonly defaultLogger: Logger = silent,
  ) {}

  /** Join through `link`; messages and failures are logged on `logger`. */
  join(link: FanoutLink, logger?: Logger): FanoutMembership {
    const member: Member = { link, logger: containedLogger(logger ?? this.defaultLogger) };
    this.members.push(member);
    return {
      receive: (message) => this.receive(member, message),
      leave: () => {
        const at = this.members.indexOf(member);
        if (at >= 0) this.members.splice(at, 1);
      },
    };
  }

  /**
   * Hand `method` to the other processes once. Never rejects: a failure is logged (the caller has
   * delivered locally already). Methods outside `notifications/` and messages over
   * {@link MAX_FANOUT_MESSAGE_BYTES} are not published (receivers would drop them).
   */
  async publish(method: string, params: JsonObject | undefined): Promise<void> {
    const member = this.members[0];
    if (member === undefined) return;
    const { logger } = member;
    if (!method.startsWith('notifications/')) {
      logger.debug(`fan-out: ${method} is not a notification; delivered on this process only`);
      return;
    }
    let text: string;
    try {
      text = JSON.stringify(params === undefined ? { t: 'notify', method } : { t: 'notify', method, params });
    } catch (error) {
      logger.error(`fan-out: ${method} could not be serialized; delivered on this process only`, error);
      return;
    }
    if (tooLarge(text)) {
      logger.error(
        `fan-out: ${method} is over ${MAX_FANOUT_MESSAGE_BYTES} bytes; delivered on this process only`,
      );
      return;
    }
    try {
      await member.link.publish(text);
    } catch (error) {
      logger.error(`fan-out: publishing ${method} failed; delivered on this process only`, error);
    }
  }

  private receive(member: Member, message: string): void {
    const { logger } = member;
    if (this.members[0] !== member) {
      logger.debug(
        this.members.includes(member)
          ? 'fan-out: message on a standby membership ignored'
          : 'fan-out: message after leave() ignored',
      );
      return;
    }
    const parsed = parseMessage(message);
    if (typeof parsed === 'string') {
      logger.debug(`fan-out: message ignored (${parsed})`);
      return;
    }
    // Async wrapper: a delivery that throws synchronously is caught like one that rejects.
    void (async () => this.deliver(parsed.method, parsed.params))().catch((error: unknown) =>
      logger.error(`fan-out: delivering ${parsed.method} failed`, error),
    );
  }
}

interface Member {
  readonly link: FanoutLink;
  readonly logger: Logger;
}

/**
 * A fan-out message from its text, or why it is not one.
 *
 * @example
 * parseMessage('{"t":"notify","method":"notifications/x"}'); // { t: 'notify', method: 'notifications/x' }
 * parseMessage('{"t":"open"}'); // 'unknown t'
 */
export function parseMessage(message: unknown): FanoutMessage | string {
  if (typeof message !== 'string') return 'not text';
  if (tooLarge(message)) return `over ${MAX_FANOUT_MESSAGE_BYTES} bytes`;
  let value: unknown;
  try {
    value = JSON.parse(message);
  } catch {
    return 'not JSON';
  }
  if (!isObject(value)) return 'not an object';
  if (value.t !== 'notify') return 'unknown t';
  const { method, params } = value;
  if (typeof method !== 'string' || !method.startsWith('notifications/')) return 'not a notification';
  if (params !== undefined && !isObject(params)) return 'params not an object';
  if (method === 'notifications/resources/updated' && !(typeof params?.uri === 'string' && params.uri !== ''))
    return 'resources/updated without a uri';
  return params === undefined ? { t: 'notify', method } : { t: 'notify', method, params };
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const encoder = new TextEncoder();

/** Over the byte bound; the UTF-8 length is counted only when the character count cannot tell. */
function tooLarge(text: string): boolean {
  if (text.length > MAX_FANOUT_MESSAGE_BYTES) return true;
  if (text.length * 3 <= MAX_FANOUT_MESSAGE_BYTES) return false;
  return encoder.encode(text).byteLength > MAX_FANOUT_MESSAGE_BYTES;
}
