import { afterEach, describe, expect, it } from 'vitest';
import { discoverAuthorization } from 'keel-mcp/client';
import { AuthorizationError } from 'keel-mcp/core';
import { useProcessGuard } from '../helpers/guard.js';
import { json, startHttpStub, type HttpStub } from './support/http-stub.js';

useProcessGuard();

const stubs: HttpStub[] = [];
afterEach(async () => {
  await Promise.all(stubs.splice(0).map((s) => s.close()));
});

async function stub(): Promise<HttpStub> {
  const s = await startHttpStub();
  stubs.push(s);
  return s;
}

function asMetadata(issuer: string, extra: Record<string, unknown> = {}) {
  return {
    issuer,
    authorization_endpoint: `${issuer}/authorize`,
    token_endpoint: `${issuer}/token`,
    code_challenge_methods_supported: ['S256'],
    ...extra,
  };
}

async function rejection(promise: Promise<unknown>): Promise<AuthorizationError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AuthorizationError);
  return error as AuthorizationError;
}

describe('protected resource metadata discovery order', () => {
  it('uses resource_metadata from WWW-Authenticate first and probes no well-known URL', async () => {
    const s = await stub();
    s.routes.set(
      '/custom/prm.json',
      json({ resource: `${s.origin}/mcp`, authorization_servers: [s.origin] }),
    );
    s.routes.set('/.well-known/oauth-authorization-server', json(asMetadata(s.origin)));
    const found = await discoverAuthorization(`${s.origin}/mcp`, {
      wwwAuthenticate: `Bearer error="invalid_token", resource_metadata="${s.origin}/custom/prm.json"`,
    });
    expect(found.resourceMetadataUrl?.href).toBe(`${s.origin}/custom/prm.json`);
    expect(found.source).toBe('metadata');
    expect(s.hits('/.well-known/oauth-protected-resource/mcp')).toHaveLength(0);
    expect(s.hits('/.well-known/oauth-protected-resource')).toHaveLength(0);
  });

  it('tries the path-based URL before the root one, and stops at the first found', async () => {
    const s = await stub();
    s.routes.set(
      '/.well-known/oauth-protected-resource/mcp',
      json({ resource: `${s.origin}/mcp`, authorization_servers: [s.origin] }),
    );
    s.routes.set(
      '/.well-known/oauth-protected-resource',
      json({ resource: s.origin, authorization_servers: ['http://127.0.0.1:1'] }),
    );
    s.routes.set('/.well-known/oauth-authorization-server', json(asMetadata(s.origin)));
    const found = await discoverAuthorization(`${s.origin}/mcp`);
    expect(found.resource).toBe(`${s.origin}/mcp`);
    expect(s.hits('/.well-known/oauth-protected-resource')).toHaveLength(0);
  });

  it('falls back to the root URL when the path-based one is missing, and keeps its resource as published', async () => {
    const s = await stub();
    s.routes.set(
      '/.well-known/oauth-protected-resource',
      json({ resource: `${s.origin}/`, authorization_servers: [s.origin] }),
    );
    s.routes.set('/.well-known/oauth-authorization-server', json(asMetadata(s.origin)));
    const found = await discoverAuthorization(`${s.origin}/mcp`);
    expect(s.requests.map((r) => r.path).slice(0, 2)).toEqual([
      '/.well-known/oauth-protected-resource/mcp',
      '/.well-known/oauth-protected-resource',
    ]);
    expect(found.resource).toBe(`${s.origin}/`);
  });

  it('falls back to the hinted URL failing, then the well-known URLs', async () => {
    const s = await stub();
    s.routes.set(
      '/.well-known/oauth-protected-resource/mcp',
      json({ resource: `${s.origin}/mcp`, authorization_servers: [s.origin] }),
    );
    s.routes.set('/.well-known/oauth-authorization-server', json(asMetadata(s.origin)));
    const found = await discoverAuthorization(`${s.origin}/mcp`, {
      wwwAuthenticate: `Bearer resource_metadata="${s.origin}/gone"`,
    });
    expect(found.resourceMetadataUrl?.pathname).toBe('/.well-known/oauth-protected-resource/mcp');
    expect(s.hits('/gone')).toHaveLength(1);
  });

  it('2025-03-26: no protected resource metadata, authorization server metadata at the origin', async () => {
    const s = await stub();
    s.routes.set(
      '/.well-known/oauth-authorization-server',
      json(asMetadata(s.origin, { token_endpoint: `${s.origin}/oauth/token` })),
    );
    const found = await discoverAuthorization(`${s.origin}/mcp`);
    expect(found.source).toBe('legacy-metadata');
    expect(found.issuer).toBe(s.origin);
    expect(found.authorizationServer.token_endpoint).toBe(`${s.origin}/oauth/token`);
    expect(found.resourceMetadata).toBeUndefined();
  });

  it('2025-03-26: no metadata at all, default endpoints at the origin', async () => {
    const s = await stub();
    const found = await discoverAuthorization(`${s.origin}/mcp`);
    expect(found.source).toBe('legacy-defaults');
    expect(found.authorizationServer).toMatchObject({
      authorization_endpoint: `${s.origin}/authorize`,
      token_endpoint: `${s.origin}/token`,
      registration_endpoint: `${s.origin}/register`,
    });
  });
});

describe('authorization server metadata discovery order', () => {
  const order = [
    '/.well-known/oauth-authorization-server/tenant1',
    '/.well-known/openid-configuration/tenant1',
    '/tenant1/.well-known/openid-configuration',
  ];
  it.each([0, 1, 2])('issuer with a path: found at candidate %i after the earlier ones', async (index) => {
    const s = await stub();
    const issuer = `${s.origin}/tenant1`;
    s.routes.set(
      '/.well-known/oauth-protected-resource',
      json({ resource: s.origin, authorization_servers: [issuer] }),
    );
    s.routes.set(order[index]!, json(asMetadata(issuer)));
    const found = await discoverAuthorization(`${s.origin}/mcp`);
    expect(found.issuer).toBe(issuer);
    const asPaths = s.requests
      .map((r) => r.path)
      .filter((p) => p.includes('openid') || p.includes('authorization-server'));
    expect(asPaths).toEqual(order.slice(0, index + 1));
    expect(s.hits('/.well-known/oauth-authorization-server')).toHaveLength(0);
  });

  it('issuer without a path: RFC 8414 then OpenID Connect discovery', async () => {
    const s = await stub();
    s.routes.set(
      '/.well-known/oauth-protected-resource/mcp',
      json({ resource: `${s.origin}/mcp`, authorization_servers: [s.origin] }),
    );
    s.routes.set('/.well-known/openid-configuration', json(asMetadata(s.origin)));
    await discoverAuthorization(`${s.origin}/mcp`);
    expect(s.hits('/.well-known/oauth-authorization-server')).toHaveLength(1);
    expect(s.hits('/.well-known/openid-configuration')).toHaveLength(1);
  });

  it('no metadata for a listed issuer is a discovery error naming the URLs tried', async () => {
    const s = await stub();
    s.routes.set(
      '/.well-known/oauth-protected-resource/mcp',
      json({ resource: `${s.origin}/mcp`, authorization_servers: [s.origin] }),
    );
    const error = await rejection(discoverAuthorization(`${s.origin}/mcp`));
    expect(error.reason).toBe('discovery');
    expect(error.message).toContain('/.well-known/openid-configuration');
  });
});

describe('metadata that lies', () => {
  it('refuses metadata whose issuer is not the one it was fetched for, and tries no other candidate', async () => {
    const s = await stub();
    s.routes.set(
      '/.well-known/oauth-protected-resource/mcp',
      json({ resource: `${s.origin}/mcp`, authorization_servers: [s.origin] }),
    );
    s.routes.set('/.well-known/oauth-authorization-server', json(asMetadata('https://attacker.example.com')));
    s.routes.set('/.well-known/openid-configuration', json(asMetadata(s.origin)));
    const error = await rejection(discoverAuthorization(`${s.origin}/mcp`));
    expect(error.reason).toBe('issuer-mismatch');
    expect(s.hits('/.well-known/openid-configuration')).toHaveLength(0);
  });

  it('compares the issuer as a string: a trailing-slash variant is a mismatch', async () => {
    const s = await stub();
    s.routes.set(
      '/.well-known/oauth-protected-resource/mcp',
      json({ resource: `${s.origin}/mcp`, authorization_servers: [s.origin] }),
    );
    s.routes.set('/.well-known/oauth-authorization-server', json(asMetadata(`${s.origin}/`)));
    expect((await rejection(discoverAuthorization(`${s.origin}/mcp`))).reason).toBe('issuer-mismatch');
  });

  it('refuses protected resource metadata for another resource before any authorization server request', async () => {
    const s = await stub();
    s.routes.set(
      '/.well-known/oauth-protected-resource/mcp',
      json({ resource: 'https://evil.example.com/mcp', authorization_servers: [s.origin] }),
    );
    const error = await rejection(discoverAuthorization(`${s.origin}/mcp`));
    expect(error.reason).toBe('resource-mismatch');
    expect(s.requests).toHaveLength(1);
  });

  it('refuses a resource on the same origin but another path', async () => {
    const s = await stub();
    s.routes.set(
      '/.well-known/oauth-protected-resource/mcp',
      json({ resource: `${s.origin}/other`, authorization_servers: [s.origin] }),
    );
    expect((await rejection(discoverAuthorization(`${s.origin}/mcp`))).reason).toBe('resource-mismatch');
  });

  it('does not follow a metadata redirect to another host', async () => {
    const s = await stub();
    const elsewhere = await stub();
    const moved: () => { status: number; headers: Record<string, string> } = () => ({
      status: 302,
      headers: { location: `${elsewhere.origin}/.well-known/oauth-protected-resource/mcp` },
    });
    s.routes.set('/.well-known/oauth-protected-resource/mcp', moved);
    s.routes.set('/.well-known/oauth-protected-resource', moved);
    const error = await rejection(discoverAuthorization(`${s.origin}/mcp`));
    expect(error.reason).toBe('redirect');
    expect(elsewhere.requests).toHaveLength(0);
  });

  it('does not follow an authorization server metadata redirect', async () => {
    const s = await stub();
    const elsewhere = await stub();
    s.routes.set(
      '/.well-known/oauth-protected-resource/mcp',
      json({ resource: `${s.origin}/mcp`, authorization_servers: [s.origin] }),
    );
    const moved = () => ({ status: 302, headers: { location: `${elsewhere.origin}/x` } });
    s.routes.set('/.well-known/oauth-authorization-server', moved);
    s.routes.set('/.well-known/openid-configuration', moved);
    const error = await rejection(discoverAuthorization(`${s.origin}/mcp`));
    expect(error.reason).toBe('discovery');
    expect(error.message).toContain('redirect, not followed');
    expect(elsewhere.requests).toHaveLength(0);
  });

  it('refuses plain http off loopback without sending anything', async () => {
    let calls = 0;
    const error = await rejection(
      discoverAuthorization('http://mcp.example.com/mcp', {
        fetch: () => {
          calls++;
          return Promise.reject(new Error('unreachable'));
        },
      }),
    );
    expect(error.reason).toBe('insecure-url');
    expect(calls).toBe(0);
  });

  it('refuses an authorization server listed with plain http off loopback', async () => {
    const s = await stub();
    s.routes.set(
      '/.well-known/oauth-protected-resource/mcp',
      json({ resource: `${s.origin}/mcp`, authorization_servers: ['http://auth.example.com'] }),
    );
    expect((await rejection(discoverAuthorization(`${s.origin}/mcp`))).reason).toBe('insecure-url');
  });

  it('refuses malformed protected resource metadata with a discovery error', async () => {
    const s = await stub();
    s.routes.set(
      '/.well-known/oauth-protected-resource/mcp',
      json({ resource: `${s.origin}/mcp`, authorization_servers: [] }),
    );
    const error = await rejection(discoverAuthorization(`${s.origin}/mcp`));
    expect(error.reason).toBe('discovery');
    expect(error.message).toContain('authorization_servers');
  });

  it('an aborted signal ends discovery with an aborted error', async () => {
    const s = await stub();
    const controller = new AbortController();
    s.routes.set('/.well-known/oauth-protected-resource/mcp', () => {
      controller.abort();
      return { status: 404 };
    });
    const error = await rejection(discoverAuthorization(`${s.origin}/mcp`, { signal: controller.signal }));
    expect(error.reason).toBe('aborted');
  });
});

describe('2025-03-26 metadata at the origin', () => {
  it('records the issuer the document names (no issuer was announced), and the endpoints it lists', async () => {
    const s = await stub();
    s.routes.set('/.well-known/oauth-authorization-server', json(asMetadata(`${s.origin}/oauth`)));
    const found = await discoverAuthorization(`${s.origin}/mcp`);
    expect(found.source).toBe('legacy-metadata');
    expect(found.issuer).toBe(`${s.origin}/oauth`);
    expect(found.authorizationServer.token_endpoint).toBe(`${s.origin}/oauth/token`);
  });

  it('refuses a document at the origin that names an issuer of another origin (issuer-mismatch)', async () => {
    const s = await stub();
    // evil.example claims to be auth.example.com, with its own endpoints: the credentials
    // pre-registered (or stored) for auth.example.com must never reach them.
    s.routes.set(
      '/.well-known/oauth-authorization-server',
      json({ ...asMetadata(s.origin), issuer: 'https://auth.example.com' }),
    );
    const error = await rejection(discoverAuthorization(`${s.origin}/mcp`));
    expect(error.reason).toBe('issuer-mismatch');
    expect(error.message).toContain('https://auth.example.com');
    expect(s.hits('/.well-known/openid-configuration')).toHaveLength(0);
  });

  it('review 2: an issuer string with line breaks cannot forge log lines through the error message', async () => {
    const s = await stub();
    // URL parsing drops the CR/LF, so this still reads as an issuer (of another origin).
    const forged = 'https://auth.example.com/\r\n[keel]-token-accepted-for-admin';
    s.routes.set(
      '/.well-known/oauth-authorization-server',
      json({ ...asMetadata(s.origin), issuer: forged }),
    );
    const error = await rejection(discoverAuthorization(`${s.origin}/mcp`));
    expect(error.reason).toBe('issuer-mismatch');
    expect(error.message).not.toMatch(/[\r\n]/);
  });

  it('refuses an issuer on the same host but another port', async () => {
    const s = await stub();
    const other = new URL(s.origin);
    other.port = String(Number(other.port) + 1);
    s.routes.set(
      '/.well-known/oauth-authorization-server',
      json({ ...asMetadata(s.origin), issuer: other.origin }),
    );
    const error = await rejection(discoverAuthorization(`${s.origin}/mcp`));
    expect(error.reason).toBe('issuer-mismatch');
  });

  // Issue 30 item 4: same host and port, another scheme. An `http:` issuer for an `https:`
  // resource is a downgrade (its endpoints would get the secrets in clear text); the reverse is
  // another origin too. The `https:` resource is served by the stub through a fetch that maps
  // https://127.0.0.1:<port> onto it (the stub speaks plain HTTP).
  it.each([
    ['an http: issuer for an https: resource', 'https:', 'http:'],
    ['an https: issuer for an http: resource', 'http:', 'https:'],
  ])('refuses %s on the same host and port', async (_what, resourceScheme, issuerScheme) => {
    const s = await stub();
    const origin = (scheme: string): string => s.origin.replace(/^http:/, scheme);
    const plain = (input: string | URL, init?: RequestInit) =>
      fetch(String(input).replace(/^https:/, 'http:'), init);
    s.routes.set(
      '/.well-known/oauth-authorization-server',
      json({ ...asMetadata(origin(resourceScheme)), issuer: origin(issuerScheme) }),
    );
    const error = await rejection(discoverAuthorization(`${origin(resourceScheme)}/mcp`, { fetch: plain }));
    expect(error.reason).toBe('issuer-mismatch');
    expect(error.message).toContain(JSON.stringify(origin(issuerScheme)));
    // The document was read (the refusal is about its issuer, not an unreachable server).
    expect(s.hits('/.well-known/oauth-authorization-server')).toHaveLength(1);
  });
});
