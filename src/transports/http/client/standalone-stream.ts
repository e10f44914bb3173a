/**
 * The optional standalone GET stream: server requests and notifications that belong to no client
 * request. Purely additive: when the server refuses it (405, 400, anything) there is just none.
 */
import { HttpTransportError } from '../../../core/http-errors.js';
import type { HttpSession } from './http-session.js';
import { followStream, type StreamSettings } from './stream-follower.js';

/**
 * At most one standalone GET stream at a time, reopened (with `Last-Event-ID` when known) when it
 * drops, within the reconnection policy.
 *
 * @example
 * const stream = new StandaloneStream(http, settings, console.error);
 * stream.open(); // after notifications/initialized
 * stream.stop(); // on close or a new session
 */
export class StandaloneStream {
  private controller: AbortController | undefined;

  constructor(
    private readonly http: HttpSession,
    private readonly settings: StreamSettings,
    private readonly report: (error: unknown) => void,
  ) {}

  open(): void {
    if (this.controller) return;
    const controller = new AbortController();
    this.controller = controller;
    void this.run(controller);
  }

  stop(): void {
    this.controller?.abort();
    this.controller = undefined;
  }

  private async run(controller: AbortController): Promise<void> {
    const session = this.http.id;
    try {
      const response = await this.http.get(controller.signal);
      const reopen = (lastEventId: string | undefined, signal: AbortSignal): Promise<Response> =>
        this.http.get(signal, lastEventId, session);
      const result = await followStream(
        { ...this.settings, reopen },
        response,
        controller.signal,
        () => false,
        false,
      );
      if (result.lost) this.report(result.cause);
    } catch (error) {
      if (!controller.signal.aborted && !(error instanceof HttpTransportError && error.status === 405)) {
        this.report(error);
      }
    } finally {
      if (this.controller === controller) this.controller = undefined;
    }
  }
}
