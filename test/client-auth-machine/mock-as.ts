/**
 * A token endpoint on 127.0.0.1 for the machine grant tests: it records every request (form fields
 * and Authorization header) and answers with what the test's handler returns.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AuthChallenge } from 'keel-mcp/core';
import type { ProtectedResource } from 'keel-mcp/client';

export interface RecordedRequest {
  readonly path: string;
  readonly method: string;
  readonly authorization: string | undefined;
  readonly form: Record<string, string>;
  /** Field names in the order sent (to check exact sets). */
  readonly fields: string[];
}

export interface MockAnswer {
  readonly status?: number;
  /** An object is sent as JSON; a string as text/plain. */
  readonly body: unknown;
  readonly headers?: Record<string, string>;
}

export interface MockServer {
  readonly url: string;
  readonly requests: RecordedRequest[];
  close(): Promise<void>;
}

export type MockHandler = (request: RecordedRequest) => MockAnswer | Promise<MockAnswer>;

const MAX_BODY = 64 * 1024;

async function readBody(req: IncomingMessage): Promise<string> {
  let body = '';
  for await (const chunk of req) {
    body += String(chunk);
    if (body.length > MAX_BODY) throw new Error('body too large');
  }
  return body;
}

/** Starts the server; `handler` answers each request (after it was recorded). */
export async function startMockServer(handler: MockHandler): Promise<MockServer> {
  const requests: RecordedRequest[] = [];
  const server: Server = createServer((req, res) => {
    void (async () => {
      const text = await readBody(req);
      const params = new URLSearchParams(text);
      const recorded: RecordedRequest = {
        path: req.url ?? '',
        method: req.method ?? '',
        authorization: req.headers.authorization,
        form: Object.fromEntries(params),
        fields: [...params.keys()],
      };
      requests.push(recorded);
      const answer = await handler(recorded);
      const json = typeof answer.body !== 'string';
      res.writeHead(answer.status ?? 200, {
        'content-type': json ? 'application/json' : 'text/plain',
        connection: 'close',
        ...answer.headers,
      });
      res.end(json ? JSON.stringify(answer.body) : answer.body);
    })().catch(() => {
      res.writeHead(500, { connection: 'close' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return {
    url: `http://127.0.0.1:${address.port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A protected resource whose authorization server is `as` (what discovery would find). */
export function resourceAt(
  as: MockServer,
  extra: { scopesSupported?: string[]; tokenEndpointAuthMethods?: string[] } = {},
): ProtectedResource {
  return {
    resource: 'https://mcp.example.com/mcp',
    authorizationServer: {
      issuer: as.url,
      token_endpoint: `${as.url}/token`,
      ...(extra.tokenEndpointAuthMethods
        ? { token_endpoint_auth_methods_supported: extra.tokenEndpointAuthMethods }
        : {}),
    },
    ...(extra.scopesSupported ? { scopesSupported: extra.scopesSupported } : {}),
  };
}

/** A refusal by the MCP server, as the transport reports it. */
export function refusal(status: 401 | 403, wwwAuthenticate?: string): AuthChallenge {
  return { url: new URL('https://mcp.example.com/mcp'), status, wwwAuthenticate };
}

/** A token answer. */
export function tokenAnswer(token: string, extra: Record<string, unknown> = {}): MockAnswer {
  return { body: { access_token: token, token_type: 'Bearer', expires_in: 3600, ...extra } };
}
