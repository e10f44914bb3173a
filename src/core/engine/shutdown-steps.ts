/**
 * The steps of the connection's teardown that need no connection state. The order and the one
 * place they run in stay in `Connection.teardown`.
 */
import { ErrorCode } from '../errors.js';
import { errorResponse } from '../jsonrpc.js';
import type { InflightRequest } from './inbound.js';
import type { InboundRequests } from './inbound-requests.js';
import type { WireWriter } from './wire-writer.js';

/** Logs and never throws (teardown must not fail on a faulty logger). */
export type Reporter = (level: 'debug' | 'error', message: string, detail: unknown) => void;

/** Empty the inbound side and abort each entry, each abort contained; returns the snapshot. */
export function abortAll(inbound: InboundRequests, error: unknown, report: Reporter): InflightRequest[] {
  let taken: InflightRequest[] = [];
  try {
    taken = inbound.takeAll();
  } catch (takeError) {
    report('error', 'emptying the in-flight table failed', takeError);
  }
  for (const entry of taken) {
    try {
      entry.abort(error);
    } catch (abortError) {
      report('error', `aborting ${entry.method} failed`, abortError);
    }
  }
  return taken;
}

/**
 * Answer each entry that is neither answered nor cancelled with one `-32000 Connection closed`,
 * while the write side is open; waits for the writes at most `ms`.
 */
export async function answerClosed(
  entries: InflightRequest[],
  writer: WireWriter,
  ms: number,
): Promise<void> {
  if (!writer.open) return;
  const writes: Promise<void>[] = [];
  for (const entry of entries) {
    if (entry.answered || entry.cancelled) continue;
    entry.answered = true;
    writes.push(
      writer.write(errorResponse(entry.id, ErrorCode.ConnectionClosed, 'Connection closed'), entry.id),
    );
  }
  if (writes.length > 0) await bounded(Promise.all(writes), ms);
}

/**
 * The EOF drain window: resolves after `ms`, or earlier when the `done` handed to `setWaiter` is
 * called (the last handler finished, or a local close).
 */
export function drainWindow(ms: number, setWaiter: (done: (() => void) | undefined) => void): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      resolve();
    }
    setWaiter(done);
  }).finally(() => setWaiter(undefined));
}

function bounded(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const limit = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  return Promise.race([work.then(() => undefined), limit]).finally(() => clearTimeout(timer));
}
