/**
 * A request sent the way python-sdk 1.29's streamable HTTP client sends it (read from
 * `src/mcp/client/streamable_http.py` at v1.29.0; no python here, the behaviour is modelled):
 *
 * - POST the request, read the SSE answer, remembering the last event id and `retry:`.
 * - A response or error for the request settles it (the client then closes the stream).
 * - A stream that ends without one, after an event id was seen, is resumed: GET with
 *   `Last-Event-ID`. A GET refused (404 for a session that is gone) counts as a failed attempt;
 *   after two failed attempts the client gives up *silently*: nothing settles the call, which
 *   then waits for its own timeout (or forever).
 *
 * Unlike python, this model keeps reading a stream after the answer to its end, so a test can
 * also check that nothing follows the answer.
 */
import type { JsonObject } from 'keel-mcp/core';
import { post, SseReader } from './harness.js';

/** python-sdk 1.29's `MAX_RECONNECTION_ATTEMPTS`. */
const MAX_RECONNECTION_ATTEMPTS = 2;
/** Python resumes for as long as resumed streams open; the model stops somewhere. */
const MAX_RESUMES = 10;

export interface PythonLikeOutcome {
  /** Every response or error for the request, wherever it came from (at most one is right). */
  answers: JsonObject[];
  /** Where the first answer came from, if any. */
  answeredOn: 'post' | 'resume' | undefined;
  /** Server→client messages seen on the request's streams, in order. */
  related: JsonObject[];
  /** Status of each resumption GET. */
  resumes: number[];
  /** No answer, and the client stopped trying: python-sdk's call would hang here. */
  gaveUp: boolean;
}

/**
 * Send `request` in session `sessionId` as python-sdk 1.29 would; `onRelated` sees each
 * server→client message as it arrives. `headers` go on every HTTP request it makes.
 *
 * @example
 * const outcome = await pythonLikeCall(url, sessionId, callTool(1, 'block'), { onRelated });
 */
export async function pythonLikeCall(
  url: string,
  sessionId: string,
  request: JsonObject,
  options: { onRelated?: (message: JsonObject) => void; headers?: Record<string, string> } = {},
): Promise<PythonLikeOutcome> {
  const outcome: Omit<PythonLikeOutcome, 'gaveUp'> = {
    answers: [],
    answeredOn: undefined,
    related: [],
    resumes: [],
  };
  const response = await post(url, request, { sessionId, headers: options.headers });
  if (response.status !== 200 || !response.headers.get('content-type')?.startsWith('text/event-stream')) {
    throw new Error(`expected an SSE answer, got ${response.status}`);
  }
  let lastEventId = await readStream(new SseReader(response), request.id, outcome, 'post', options);
  let attempt = 0;
  while (
    outcome.answers.length === 0 &&
    lastEventId !== undefined &&
    attempt < MAX_RECONNECTION_ATTEMPTS &&
    outcome.resumes.length < MAX_RESUMES
  ) {
    const resumed = await fetch(url, {
      headers: {
        accept: 'text/event-stream',
        'mcp-session-id': sessionId,
        'last-event-id': lastEventId,
        ...options.headers,
      },
    });
    outcome.resumes.push(resumed.status);
    if (!resumed.ok) {
      await resumed.body?.cancel();
      attempt++;
      continue;
    }
    attempt = 0;
    lastEventId =
      (await readStream(new SseReader(resumed), request.id, outcome, 'resume', options)) ?? lastEventId;
  }
  return { ...outcome, gaveUp: outcome.answers.length === 0 };
}

/** Read one stream to its end; returns the last event id seen. */
async function readStream(
  reader: SseReader,
  id: unknown,
  outcome: Omit<PythonLikeOutcome, 'gaveUp'>,
  source: 'post' | 'resume',
  options: { onRelated?: (message: JsonObject) => void },
): Promise<string | undefined> {
  let lastEventId: string | undefined;
  for (let event = await reader.next(); event; event = await reader.next()) {
    if (event.id) lastEventId = event.id;
    if (event.data === '') continue; // priming event
    const message = JSON.parse(event.data) as JsonObject;
    if ('method' in message) {
      outcome.related.push(message);
      options.onRelated?.(message);
    } else if (message.id === id) {
      outcome.answers.push(message);
      outcome.answeredOn ??= source;
    }
  }
  return lastEventId;
}
