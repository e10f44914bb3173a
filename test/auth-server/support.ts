/**
 * Issue 11, resource server tests: keys generated per test file, a JWKS (and issuer metadata)
 * served by a tiny node:http server on 127.0.0.1, token minting, and a protected McpServer.
 */
import {
  createServer,
  type IncomingMessage,
  type Server as NodeServer,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';
import { serveHttp, type HttpServing, type ServeHttpOptions } from 'keel-mcp/node';
import type { Logger } from 'keel-mcp/core';
import { JwtVerifier, McpServer, type ResourceServerOptions, type TokenVerifier } from 'keel-mcp/server';

/** The resource URL tokens are minted for (an identifier: the server listens on any port). */
export const RESOURCE = 'https://mcp.test/mcp';
export const PRM_URL = 'https://mcp.test/.well-known/oauth-protected-resource/mcp';

export interface SigningKey {
  readonly kid: string;
  readonly privateKey: CryptoKey;
  readonly publicJwk: JWK;
}

export async function signingKey(kid: string, alg = 'RS256'): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' };
  return { kid, privateKey, publicJwk };
}

/**
 * A tiny authorization server: `/jwks` (the keys in `keys`, changeable), RFC 8414 metadata, and
 * a switch that makes every endpoint answer 500. Counts JWKS fetches.
 */
export class KeyServer {
  keys: SigningKey[] = [];
  down = false;
  jwksFetches = 0;
  /** Extra routes (the introspection endpoint). */
  readonly routes = new Map<string, (req: IncomingMessage, res: ServerResponse, body: string) => void>();
  private server: NodeServer | undefined;
  issuer = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      // No keep-alive: a test must not end with the verifier's pooled socket still open.
      res.setHeader('connection', 'close');
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => this.route(req, res, body));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.issuer = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  get jwksUri(): string {
    return `${this.issuer}/jwks`;
  }

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  private route(req: IncomingMessage, res: ServerResponse, body: string): void {
    if (this.down) {
      res.writeHead(500).end('down');
      return;
    }
    const path = new URL(req.url ?? '/', this.issuer).pathname;
    const extra = this.routes.get(path);
    if (extra) return extra(req, res, body);
    if (path === '/jwks') {
      this.jwksFetches += 1;
      return json(res, { keys: this.keys.map((key) => key.publicJwk) });
    }
    if (path === '/.well-known/oauth-authorization-server') {
      return json(res, { issuer: this.issuer, jwks_uri: this.jwksUri, response_types_supported: ['code'] });
    }
    res.writeHead(404).end();
  }
}

export function json(res: ServerResponse, value: unknown): void {
  const body = JSON.stringify(value);
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

export interface Mint {
  key?: SigningKey;
  claims?: JWTPayload;
  header?: Record<string, unknown>;
  /** Seconds from now. */
  expiresIn?: number | undefined;
  issuer?: string;
  audience?: string | string[];
}

/** A signed access token; defaults: RS256, the given issuer, audience RESOURCE, 5 min lifetime. */
export async function mint(issuer: string, key: SigningKey, options: Mint = {}): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const jwt = new SignJWT({ scope: 'mcp', ...options.claims })
    .setProtectedHeader({ alg: String(key.publicJwk.alg), kid: key.kid, typ: 'at+jwt', ...options.header })
    .setIssuer(options.issuer ?? issuer)
    .setAudience(options.audience ?? RESOURCE)
    .setSubject(String(options.claims?.sub ?? 'alice'))
    .setIssuedAt(now);
  if (!('expiresIn' in options) || options.expiresIn !== undefined) {
    jwt.setExpirationTime(now + (options.expiresIn ?? 300));
  }
  return jwt.sign((options.key ?? key).privateKey);
}

/** A logger that keeps every line (to check no token reaches it). */
export class SpyLogger implements Logger {
  readonly lines: string[] = [];
  debug(...args: unknown[]): void {
    this.lines.push(args.map(String).join(' '));
  }
  error(...args: unknown[]): void {
    this.lines.push(
      args
        .map((a) => (a instanceof Error ? `${a.name}: ${a.message} ${String(a.cause)}` : String(a)))
        .join(' '),
    );
  }
}

/** A protected McpServer with a few tools, a resource, a template and a prompt that need scopes. */
export function protectedServer(): McpServer {
  const server = new McpServer({ name: 'protected', version: '1' }, { onerror: undefined });
  server.tool('whoami', { description: 'Who is calling' }, (_args, ctx) =>
    JSON.stringify({
      subject: ctx.auth?.subject,
      scopes: ctx.auth?.scopes,
      clientId: ctx.auth?.clientId,
      hasTokenField:
        ctx.auth !== undefined &&
        Object.values(ctx.auth).some((v) => typeof v === 'string' && v.split('.').length === 3),
    }),
  );
  server.tool('write', { description: 'Writes', scopes: ['files:write'] }, () => 'written');
  server.tool('admin', { description: 'Admin', scopes: ['files:write', 'admin'] }, () => 'admin');
  server.resource('secret', 'file:///secret', { scopes: ['files:read'] }, () => 'secret');
  server.resourceTemplate(
    'doc',
    'docs://{id}',
    { scopes: ['docs:read'] },
    (_uri, { id }) => `doc ${String(id)}`,
  );
  server.prompt('review', { description: 'Review', scopes: ['prompts'] }, () => 'Review this');
  return server;
}

export function jwtAuth(
  keys: KeyServer,
  overrides: Partial<ResourceServerOptions> = {},
  verifier?: TokenVerifier,
): ResourceServerOptions {
  return {
    resource: RESOURCE,
    authorizationServers: [keys.issuer],
    verifier: verifier ?? new JwtVerifier({ issuer: keys.issuer, audience: RESOURCE, jwksUri: keys.jwksUri }),
    scopesSupported: ['mcp'],
    ...overrides,
  };
}

export async function serveProtected(
  auth: ResourceServerOptions,
  options: ServeHttpOptions = {},
  server: McpServer = protectedServer(),
): Promise<HttpServing> {
  return serveHttp(server, { port: 0, keepAliveMs: 0, auth, ...options });
}

export const MODERN = '2026-07-28';

/** A 2026-07-28 tools/call body and its headers. */
export function modernCall(
  id: number,
  name: string,
  args: Record<string, unknown> = {},
  meta: Record<string, unknown> = {},
) {
  const body = {
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: {
      name,
      arguments: args,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': MODERN,
        'io.modelcontextprotocol/clientCapabilities': {},
        ...meta,
      },
    },
  };
  const headers = { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': name };
  return { body, headers };
}

/** A token for {@link staticVerifier}: the subject and Base64url of the space-separated scopes. */
export function tok(subject: string, ...scopes: string[]): string {
  return `${subject}~${Buffer.from(scopes.join(' ')).toString('base64url')}`;
}

/** A verifier for tests of what happens after verification: tokens made by {@link tok}. */
export const staticVerifier: TokenVerifier = {
  verify(token) {
    const [subject, scopes = ''] = token.split('~');
    if (!subject) return Promise.reject(new Error('unreachable in these tests'));
    const list = Buffer.from(scopes, 'base64url').toString().split(' ');
    return Promise.resolve({ subject, scopes: list.filter((s) => s !== '') });
  },
};

export function staticAuth(overrides: Partial<ResourceServerOptions> = {}): ResourceServerOptions {
  return {
    resource: RESOURCE,
    authorizationServers: ['https://as.test'],
    verifier: staticVerifier,
    scopesSupported: ['mcp'],
    ...overrides,
  };
}
