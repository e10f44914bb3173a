/**
 * A new session when the server forgot ours (Streamable HTTP 404). The spec says the client MUST
 * then start a new session with a fresh `initialize`; this does it once per burst of 404s, and
 * resends the requests the server refused unprocessed, once each.
 */
import { ConnectionClosedError, RequestAbortedError } from '../core/errors.js';
import { SessionExpiredError } from '../core/http-errors.js';

/**
 * What a client tells its listeners after a new session replaced one the server had forgotten.
 *
 * @example
 * client.on('sessionReset', ({ previousSessionId, sessionId }) => console.error(`${previousSessionId} → ${sessionId}`));
 */
export interface SessionReset {
  /** The session the server answered 404 for. */
  previousSessionId: string;
  /** The session the new `initialize` opened (`undefined` if the server runs without sessions now). */
  sessionId: string | undefined;
}

const ignore = (): void => undefined;

/**
 * Sends requests through {@link run}: a request the server refused with 404 for our session is
 * resent once after a new handshake. Every request that meets the 404 of one session joins the same
 * handshake; a 404 for a session already replaced just resends. A request that meets a 404 again
 * after its session was renewed fails with that error: no loop. A failed handshake fails every
 * request of its burst (those waiting on it and those whose 404 comes in later), with no second
 * handshake; the next request sent after the failure tries once more.
 *
 * @example
 * const renewal = new SessionRenewal(
 *   async () => { await handshake(); return transport.sessionId; },
 *   (from, to) => console.error(`session ${from} replaced by ${to}`),
 *   (error) => console.error(error),
 * );
 * const tools = await renewal.run(() => connection.request('tools/list', {}));
 */
export class SessionRenewal {
  private current: { from: string; done: Promise<void> } | undefined;
  /** Sessions already replaced: a late 404 for one of them needs no new handshake. */
  private readonly replaced = new Set<string>();
  /** A handshake that failed: the next request starts with another try. */
  private failedFrom: string | undefined;
  /** The session the last handshake opened, until a request succeeds in it. */
  private fresh: string | undefined;
  /** Failed handshakes so far: a request sent before one failed does not start the next. */
  private failures = 0;

  constructor(
    /** Run `initialize` + `initialized` again; resolves with the new session id. */
    private readonly reinitialize: () => Promise<string | undefined>,
    private readonly onRenewed: (previousSessionId: string, sessionId: string | undefined) => void,
    private readonly onFailed: (error: unknown) => void,
  ) {}

  /**
   * The transport saw the server forget `sessionId` (a 404 to any request, a GET stream's too):
   * start the new session now, so that an idle client gets its stream of server messages back.
   * A failure is reported; the next request tries again.
   */
  expired(sessionId: string): void {
    // A session that never served a request is not renewed unasked: a server that forgets every
    // session at once (its GET stream meeting 404 right after the handshake) would make a loop.
    if (sessionId === this.fresh) return;
    // Its renewal just failed: the next request tries again, not every late 404 of the burst.
    if (sessionId === this.failedFrom) return;
    this.renew(sessionId).then(undefined, this.onFailed);
  }

  /**
   * Send through the current session, renewing it when needed. `signal` (the caller's) also ends
   * the wait for a handshake that other requests share: that handshake goes on for them.
   */
  async run<T>(send: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    let renewed = false;
    const failuresBefore = this.failures;
    // Nothing goes out while the session is being replaced: it would carry no session id. If that
    // handshake fails, so does this request (one handshake per burst, even against a server that
    // is down); the next request tries again.
    if (this.current) {
      await abortable(this.current.done, signal);
      renewed = true;
    } else if (this.failedFrom !== undefined) {
      await abortable(this.renew(this.failedFrom), signal);
      renewed = true;
    }
    try {
      const result = await send();
      this.fresh = undefined;
      return result;
    } catch (error) {
      const expired = unprocessedBySession(error);
      // A request of a burst whose renewal already failed meanwhile does not start another one.
      if (!expired || renewed || this.failures !== failuresBefore) throw error;
      await abortable(this.renew(expired.sessionId), signal);
      return send();
    }
  }

  private renew(from: string): Promise<void> {
    if (this.replaced.has(from)) return Promise.resolve();
    if (this.current?.from === from) return this.current.done;
    const done = this.handshake(from);
    this.current = { from, done };
    return done;
  }

  private async handshake(from: string): Promise<void> {
    let sessionId: string | undefined;
    try {
      sessionId = await this.reinitialize();
    } catch (error) {
      this.failedFrom = from;
      this.failures++;
      throw error;
    } finally {
      if (this.current?.from === from) this.current = undefined;
    }
    this.failedFrom = undefined;
    this.fresh = sessionId;
    this.replaced.add(from);
    this.onRenewed(from, sessionId);
  }
}

/** `work`, or a {@link RequestAbortedError} as soon as `signal` aborts. */
function abortable<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) {
    work.then(undefined, ignore);
    return Promise.reject(new RequestAbortedError({ cause: signal.reason }));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(new RequestAbortedError({ cause: signal.reason }));
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** The session 404 behind `error`, if the request it failed was not processed (safe to resend). */
function unprocessedBySession(error: unknown): SessionExpiredError | undefined {
  const cause = error instanceof ConnectionClosedError ? error.cause : undefined;
  return cause instanceof SessionExpiredError && cause.retryable ? cause : undefined;
}
