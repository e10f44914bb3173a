/**
 * What both sides of the tunnel share: sending a message to a peer (failures logged and handed
 * to the exchange, never thrown) and the peer liveness watch.
 */
import type { Logger } from '../../../core/engine/connection.js';
import type { PeerWatch } from './peer-watch.js';
import type { TunnelMessage } from './tunnel-wire.js';

/**
 * Why a message did not reach its peer: the relay refused it (down, or no answer in time), the
 * peer was not listening (gone, or between connections), or it was over the size bound and was
 * not sent.
 *
 * @example
 * link.send(owner, open, (error, why) => (why === 'nobody' ? checkOwner() : fail(error)));
 */
export type SendFault = 'refused' | 'nobody' | 'too-large';

/**
 * The tunnel's outbound side, as the forwarder and owner halves use it.
 *
 * @example
 * link.send(owner, { t: 'gone', x }, () => fail(x));
 */
export interface TunnelLink {
  /**
   * Hand `message` to the relay for `to`, in call order; `onFail` runs if it did not reach `to`,
   * `onSent` once the relay says it did.
   */
  send(
    to: string,
    message: TunnelMessage,
    onFail?: (error: unknown, why: SendFault) => void,
    onSent?: () => void,
  ): void;
  readonly watch: PeerWatch;
  readonly logger: Logger;
}
