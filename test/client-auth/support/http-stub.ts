/**
 * A tiny HTTP server on 127.0.0.1 for OAuth client tests: each route answers what the test says,
 * and every request is recorded (method, path, headers, body) so tests can assert exact counts
 * and parameters.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StubRequest {
  readonly method: string;
  /** Path and query. */
  readonly url: string;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
  /** The body as form parameters (token and registration requests). */
  readonly form: URLSearchParams;
}

export interface StubAnswer {
  readonly status?: number;
  readonly headers?: Record<string, string>;
  readonly json?: unknown;
  readonly text?: string;
}

export type StubRoute = (request: StubRequest) => StubAnswer | Promise<StubAnswer>;

export interface HttpStub {
  /** Origin, e.g. http://127.0.0.1:12345 (no trailing slash). */
  readonly origin: string;
  readonly requests: StubRequest[];
  /** Routes by `METHOD /path` (or `/path` for any method). Mutable: tests add routes after start. */
  readonly routes: Map<string, StubRoute>;
  /** Requests to `path` (any method). */
  hits(path: string): StubRequest[];
  close(): Promise<void>;
}

export async function startHttpStub(routes: Record<string, StubRoute> = {}): Promise<HttpStub> {
  const table = new Map(Object.entries(routes));
  const requests: StubRequest[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const body = Buffer.concat(chunks).toString('utf8');
      const request: StubRequest = {
        method: req.method ?? 'GET',
        url: req.url ?? '/',
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body,
        form: new URLSearchParams(body),
      };
      requests.push(request);
      const route = table.get(`${request.method} ${request.path}`) ?? table.get(request.path);
      new Promise<StubAnswer>((resolve) =>
        resolve(route ? route(request) : { status: 404, json: { error: 'not_found' } }),
      )
        .then((answer) => {
          const headers: Record<string, string> = { ...answer.headers };
          let payload = answer.text ?? '';
          if (answer.json !== undefined) {
            headers['content-type'] ??= 'application/json';
            payload = JSON.stringify(answer.json);
          }
          res.writeHead(answer.status ?? 200, headers).end(payload);
        })
        .catch((error: unknown) => res.writeHead(500).end(String(error)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    routes: table,
    hits: (path) => requests.filter((r) => r.path === path),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Answer with a JSON document. */
export const json =
  (value: unknown, status = 200): StubRoute =>
  () => ({ status, json: value });
