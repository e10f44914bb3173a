/**
 * Calling the web handler directly with Request objects: no sockets, for table and routing tests.
 */
import type { HttpHandler } from 'keel-mcp/http';
import { initializeRequest, JSON_AND_SSE } from './harness.js';

export const ENDPOINT = 'http://127.0.0.1/mcp';

export interface DirectOptions {
  sessionId?: string;
  headers?: Record<string, string>;
  method?: string;
  signal?: AbortSignal;
}

export function call(handler: HttpHandler, body: unknown, options: DirectOptions = {}): Promise<Response> {
  const method = options.method ?? (body === undefined ? 'GET' : 'POST');
  const headers: Record<string, string> = {
    accept: method === 'GET' ? 'text/event-stream' : JSON_AND_SSE,
    ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    ...options.headers,
  };
  if (options.sessionId !== undefined) headers['mcp-session-id'] = options.sessionId;
  return handler(
    new Request(ENDPOINT, {
      method,
      headers,
      body: body === undefined ? null : JSON.stringify(body),
      signal: options.signal ?? null,
    }),
  );
}

export async function initialize(handler: HttpHandler, version = '2025-11-25'): Promise<string> {
  const request = initializeRequest();
  (request.params as { protocolVersion: string }).protocolVersion = version;
  const response = await call(handler, request);
  const sessionId = response.headers.get('mcp-session-id');
  await response.text();
  if (!sessionId) throw new Error(`no session id (${response.status})`);
  return sessionId;
}

/** Wait (bounded) until `predicate` holds; for state with no event to await. */
export async function until(predicate: () => boolean, ms = 5_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`${what} did not hold within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
