/**
 * A mock authorization server plus protected resource metadata on one 127.0.0.1 stub, for OAuth
 * client tests. It checks what a real server checks (PKCE S256 verifier, redirect URI, client
 * authentication, single-use codes, rotated refresh tokens) and records every request, so tests
 * assert exact counts and parameters. Behaviour is switched per test through `config`.
 */
import { createHash, randomUUID } from 'node:crypto';
import { startHttpStub, type HttpStub, type StubAnswer, type StubRequest } from './http-stub.js';

export interface MockOAuthConfig {
  /** Extra or overriding authorization server metadata (null deletes a field). */
  metadata: Record<string, unknown>;
  /** Protected resource metadata `scopes_supported`. */
  prmScopes?: string[];
  /** More protected resource metadata fields (e.g. `dpop_bound_access_tokens_required`). */
  prmExtra?: Record<string, unknown>;
  /** The `resource` the PRM publishes (default: the MCP server URL given to start). */
  prmResource?: string;
  /** What `iss` the authorization response carries. */
  iss: 'correct' | 'omit' | 'wrong' | 'normalized';
  /** Tamper with `state` in the authorization response. */
  badState: boolean;
  /** Token lifetime (seconds). */
  expiresIn: number;
  /** Issue refresh tokens. */
  refresh: boolean;
  /** Scopes granted: those requested, unless set. */
  grant?: (requested: string[]) => string[];
  /** How registration answers (default: public client, `none`). */
  registration: { client_secret?: string; token_endpoint_auth_method?: string };
}

export interface IssuedToken {
  readonly scopes: string[];
  readonly resource: string | null;
  readonly clientId: string;
}

export interface MockOAuth {
  readonly stub: HttpStub;
  readonly issuer: string;
  readonly prmUrl: string;
  readonly config: MockOAuthConfig;
  /** Access tokens issued, and what they grant. */
  readonly tokens: Map<string, IssuedToken>;
  /** Refresh tokens still valid (rotation removes the old one). */
  readonly refreshTokens: Map<string, { scopes: string[]; clientId: string }>;
  /** Refresh tokens sent after they were rotated out. */
  readonly reusedRefreshTokens: string[];
  authorizeRequests(): StubRequest[];
  tokenRequests(): StubRequest[];
  registerRequests(): StubRequest[];
  close(): Promise<void>;
}

const CLIENT_SECRET = 'mock-client-secret-DO-NOT-LEAK';

export async function startMockOAuth(
  serverUrl: () => string,
  overrides: Partial<MockOAuthConfig> = {},
): Promise<MockOAuth> {
  const stub = await startHttpStub();
  const issuer = stub.origin;
  const config: MockOAuthConfig = {
    metadata: {},
    iss: 'correct',
    badState: false,
    expiresIn: 3600,
    refresh: true,
    registration: {},
    ...overrides,
  };
  const tokens = new Map<string, IssuedToken>();
  const refreshTokens = new Map<string, { scopes: string[]; clientId: string }>();
  const reusedRefreshTokens: string[] = [];
  const spentRefresh = new Set<string>();
  const clients = new Map<string, { secret?: string; method: string }>();
  const codes = new Map<
    string,
    { challenge: string; redirectUri: string; clientId: string; scopes: string[]; resource: string | null }
  >();

  const metadata = (): Record<string, unknown> => {
    const doc: Record<string, unknown> = {
      issuer,
      authorization_endpoint: `${issuer}/authorize`,
      token_endpoint: `${issuer}/token`,
      registration_endpoint: `${issuer}/register`,
      response_types_supported: ['code'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
      authorization_response_iss_parameter_supported: true,
    };
    for (const [k, v] of Object.entries(config.metadata)) {
      if (v === null) delete doc[k];
      else doc[k] = v;
    }
    return doc;
  };

  const issue = (clientId: string, scopes: string[], resource: string | null) => {
    const access = `at-${randomUUID()}`;
    tokens.set(access, { scopes, resource, clientId });
    const body: Record<string, unknown> = {
      access_token: access,
      token_type: 'Bearer',
      expires_in: config.expiresIn,
    };
    if (scopes.length) body.scope = scopes.join(' ');
    if (config.refresh) {
      const refresh = `rt-${randomUUID()}`;
      refreshTokens.set(refresh, { scopes, clientId });
      body.refresh_token = refresh;
    }
    return { json: body } satisfies StubAnswer;
  };

  const authenticate = (req: StubRequest): string | undefined => {
    const basic = req.headers.authorization;
    let id = req.form.get('client_id') ?? undefined;
    let secret = req.form.get('client_secret') ?? undefined;
    if (basic?.startsWith('Basic ')) {
      const [user, pass] = Buffer.from(basic.slice(6), 'base64').toString('utf8').split(':');
      id = decodeURIComponent(user ?? '');
      secret = decodeURIComponent(pass ?? '');
    }
    if (!id) return undefined;
    const client = clients.get(id);
    if (!client) return id.startsWith('https://') ? id : undefined; // CIMD client ids are URLs
    if (client.method === 'none') return id;
    if (client.method === 'client_secret_basic' && !basic) return undefined;
    if (client.method === 'client_secret_post' && basic) return undefined;
    return secret === client.secret ? id : undefined;
  };

  const oauthError = (error: string, status = 400): StubAnswer => ({ status, json: { error } });

  stub.routes.set('/.well-known/oauth-authorization-server', () => ({ json: metadata() }));
  stub.routes.set('/.well-known/oauth-protected-resource/mcp', () => ({
    json: {
      resource: config.prmResource ?? serverUrl(),
      authorization_servers: [issuer],
      ...(config.prmScopes && { scopes_supported: config.prmScopes }),
      ...config.prmExtra,
    },
  }));
  stub.routes.set('POST /register', (req) => {
    const body = JSON.parse(req.body || '{}') as Record<string, unknown>;
    const id = `client-${randomUUID()}`;
    const method = config.registration.token_endpoint_auth_method ?? 'none';
    const secret = method === 'none' ? undefined : (config.registration.client_secret ?? CLIENT_SECRET);
    clients.set(id, { ...(secret !== undefined && { secret }), method });
    return {
      status: 201,
      json: {
        ...body,
        client_id: id,
        ...(secret !== undefined && { client_secret: secret }),
        token_endpoint_auth_method: method,
      },
    };
  });
  stub.routes.set('GET /authorize', (req) => {
    const q = req.query;
    const redirectUri = q.get('redirect_uri');
    const challenge = q.get('code_challenge');
    if (
      !redirectUri ||
      q.get('response_type') !== 'code' ||
      q.get('code_challenge_method') !== 'S256' ||
      !challenge
    ) {
      return oauthError('invalid_request');
    }
    const code = `code-${randomUUID()}`;
    const requested = (q.get('scope') ?? '').split(' ').filter(Boolean);
    codes.set(code, {
      challenge,
      redirectUri,
      clientId: q.get('client_id') ?? '',
      scopes: config.grant ? config.grant(requested) : requested,
      resource: q.get('resource'),
    });
    const target = new URL(redirectUri);
    target.searchParams.set('code', code);
    const state = q.get('state');
    if (state) target.searchParams.set('state', config.badState ? `${state}x` : state);
    const iss = {
      correct: issuer,
      omit: undefined,
      wrong: 'https://evil.example.com',
      normalized: `${issuer}/`,
    }[config.iss];
    if (iss !== undefined) target.searchParams.set('iss', iss);
    return { status: 302, headers: { location: target.href } };
  });
  stub.routes.set('POST /token', (req) => {
    const clientId = authenticate(req);
    if (!clientId) return oauthError('invalid_client', 401);
    const grant = req.form.get('grant_type');
    if (grant === 'authorization_code') {
      const code = codes.get(req.form.get('code') ?? '');
      codes.delete(req.form.get('code') ?? '');
      const verifier = req.form.get('code_verifier') ?? '';
      const expected = createHash('sha256').update(verifier).digest('base64url');
      if (
        !code ||
        code.clientId !== clientId ||
        code.redirectUri !== req.form.get('redirect_uri') ||
        code.challenge !== expected
      ) {
        return oauthError('invalid_grant');
      }
      return issue(clientId, code.scopes, req.form.get('resource'));
    }
    if (grant === 'refresh_token') {
      const presented = req.form.get('refresh_token') ?? '';
      if (spentRefresh.has(presented)) reusedRefreshTokens.push(presented);
      const entry = refreshTokens.get(presented);
      if (!entry || entry.clientId !== clientId) return oauthError('invalid_grant');
      refreshTokens.delete(presented);
      spentRefresh.add(presented);
      return issue(clientId, entry.scopes, req.form.get('resource'));
    }
    return oauthError('unsupported_grant_type');
  });

  return {
    stub,
    issuer,
    prmUrl: `${issuer}/.well-known/oauth-protected-resource/mcp`,
    config,
    tokens,
    refreshTokens,
    reusedRefreshTokens,
    authorizeRequests: () => stub.hits('/authorize'),
    tokenRequests: () => stub.hits('/token'),
    registerRequests: () => stub.hits('/register'),
    close: () => stub.close(),
  };
}

export { CLIENT_SECRET };
