/**
 * Real HTTP hosting for the e2e suites: `serveHttp` on 127.0.0.1 port 0, in stateful (default
 * sessions) or stateless mode, plus what tests need to see on the wire without sleeping.
 */
import type { IncomingMessage } from 'node:http';
import { serveHttp, type HttpServing, type ServeHttpOptions } from 'keel-mcp/node';
import type { Connectable } from 'keel-mcp/server';
import { within } from '../../helpers/guard.js';

export type HttpMode = 'stateful' | 'stateless';
export const HTTP_MODES: readonly HttpMode[] = ['stateful', 'stateless'];

export interface HttpHost {
  readonly serving: HttpServing;
  readonly url: string;
  readonly mode: HttpMode;
  /**
   * Resolves once a standalone GET stream (no `Last-Event-ID`) has been handed to the handler —
   * after that, broadcasts such as `list_changed` have somewhere to go.
   */
  standaloneOpened(): Promise<void>;
  close(): Promise<void>;
}

/** Serve `target` over Streamable HTTP in `mode`; closing is bounded. */
export async function hostHttp(
  target: Connectable,
  mode: HttpMode,
  options: ServeHttpOptions = {},
): Promise<HttpHost> {
  const serving = await serveHttp(target, {
    port: 0,
    host: '127.0.0.1',
    keepAliveMs: 0,
    ...(mode === 'stateless' ? { sessions: false } : {}),
    ...options,
  });
  let opened!: () => void;
  const standalone = new Promise<void>((resolve) => (opened = resolve));
  // Added after serveHttp's own listener, so the handler has already taken the GET when this runs.
  serving.server.on('request', (req: IncomingMessage) => {
    if (req.method === 'GET' && req.headers['last-event-id'] === undefined) opened();
  });
  return {
    serving,
    url: serving.url,
    mode,
    standaloneOpened: () => within(standalone, 5_000, 'standalone GET stream'),
    close: () => within(serving.close({ deadlineMs: 2_000 }), 5_000, 'HTTP server close'),
  };
}

/** A raw JSON-RPC POST (no SDK in between), for checks on status codes. */
export function rawPost(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
      ...headers,
    },
    body: JSON.stringify(body),
  });
}
