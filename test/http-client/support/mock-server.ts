/**
 * A raw `node:http` MCP endpoint whose every answer the test scripts, and which records every
 * request it saw (method, headers, parsed body, time of arrival).
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { within } from '../../helpers/guard.js';

export interface Seen {
  method: string;
  headers: IncomingHttpHeaders;
  /** Parsed JSON body of a POST. */
  body: any;
  /** `performance.now()` at arrival. */
  at: number;
}

/** Scripted behaviour: answer `res` (return false to fall through to the defaults). */
export type Script = (seen: Seen, req: IncomingMessage, res: ServerResponse) => boolean | void;

export interface MockServer {
  url: string;
  seen: Seen[];
  /** Resolve with the first recorded request (past or future) matching `match`; bounded. */
  waitFor(match: (seen: Seen) => boolean, what?: string, ms?: number): Promise<Seen>;
  /** POSTed JSON-RPC bodies with this method. */
  posts(method: string): Seen[];
  close(): Promise<void>;
}

export const SESSION = 'session-1';

/** Write `res` as an SSE stream; the returned writer emits raw fields. */
export function sse(res: ServerResponse, headers: Record<string, string> = {}) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...headers });
  res.flushHeaders();
  return {
    event(fields: { id?: string; retry?: number; data?: unknown; event?: string }): void {
      let text = '';
      if (fields.event !== undefined) text += `event: ${fields.event}\n`;
      if (fields.id !== undefined) text += `id: ${fields.id}\n`;
      if (fields.retry !== undefined) text += `retry: ${fields.retry}\n`;
      const data =
        fields.data === undefined
          ? ''
          : typeof fields.data === 'string'
            ? fields.data
            : JSON.stringify(fields.data);
      text += `data: ${data}\n\n`;
      res.write(text);
    },
    end(): void {
      res.end();
    },
  };
}

export function json(
  res: ServerResponse,
  body: unknown,
  status = 200,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

export function initializeResult(id: unknown, protocolVersion = '2025-11-25') {
  return {
    jsonrpc: '2.0',
    id,
    result: { protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'mock', version: '1.0.0' } },
  };
}

/**
 * Defaults, after the script declined: initialize → JSON with session id `session-1`;
 * notifications and responses → 202; GET → 405; DELETE → 200; other requests → `{}` as JSON.
 */
function answerByDefault(seen: Seen, res: ServerResponse): void {
  if (seen.method === 'GET') return void res.writeHead(405).end();
  if (seen.method === 'DELETE') return void res.writeHead(200).end();
  const body = seen.body;
  if (body?.method === 'initialize')
    return json(res, initializeResult(body.id), 200, { 'mcp-session-id': SESSION });
  if (body?.id === undefined || body?.method === undefined) return void res.writeHead(202).end();
  json(res, { jsonrpc: '2.0', id: body.id, result: {} });
}

export async function startMockServer(script: Script = () => false): Promise<MockServer> {
  const seen: Seen[] = [];
  const waiters: { match: (s: Seen) => boolean; resolve: (s: Seen) => void }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const entry: Seen = {
        method: req.method ?? '',
        headers: req.headers,
        body: text ? JSON.parse(text) : undefined,
        at: performance.now(),
      };
      seen.push(entry);
      for (const waiter of [...waiters]) {
        if (waiter.match(entry)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(entry);
        }
      }
      if (script(entry, req, res) !== true && !res.headersSent) answerByDefault(entry, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    seen,
    waitFor(match, what = 'request', ms = 5_000) {
      const found = seen.find(match);
      if (found) return Promise.resolve(found);
      return within(new Promise<Seen>((resolve) => waiters.push({ match, resolve })), ms, what);
    },
    posts(method) {
      return seen.filter((s) => s.method === 'POST' && s.body?.method === method);
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
