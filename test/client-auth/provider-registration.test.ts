import { describe, expect, it } from 'vitest';
import { MemoryTokenStore } from 'keel-mcp/client';
import { AuthorizationError } from 'keel-mcp/core';
import { applicationType } from '../../src/client/auth/index.js';
import { useProcessGuard } from '../helpers/guard.js';
import { startMockOAuth } from './support/mock-oauth.js';
import { closeMocksAfterEach, mock, provider, refuse, rejection } from './support/provider-kit.js';

useProcessGuard();
closeMocksAfterEach();

const CIMD = 'https://client.example.com/metadata.json';

describe('registration order', () => {
  it('pre-registered credentials for the issuer come first: no registration request', async () => {
    const m = await mock({ metadata: { client_id_metadata_document_supported: true } });
    const p = provider({
      clientMetadataUrl: CIMD,
      credentials: { [m.issuer]: { client_id: 'pre-registered', token_endpoint_auth_method: 'none' } },
    });
    await rejection(refuse(p, m)); // the mock does not know the client at its token endpoint
    expect(m.authorizeRequests()[0]!.query.get('client_id')).toBe('pre-registered');
    expect(m.registerRequests()).toHaveLength(0);
  });

  it('credentials for another issuer are not used', async () => {
    const m = await mock();
    const p = provider({ credentials: { 'https://other.example.com': { client_id: 'other' } } });
    expect(await refuse(p, m)).toBe(true);
    expect(m.registerRequests()).toHaveLength(1);
    expect(m.authorizeRequests()[0]!.query.get('client_id')).not.toBe('other');
  });

  it('a client ID metadata document when the server supports them', async () => {
    const m = await mock({ metadata: { client_id_metadata_document_supported: true } });
    expect(await refuse(provider({ clientMetadataUrl: CIMD }), m)).toBe(true);
    expect(m.authorizeRequests()[0]!.query.get('client_id')).toBe(CIMD);
    expect(m.registerRequests()).toHaveLength(0);
  });

  it('dynamic registration when the server does not support metadata documents', async () => {
    const m = await mock();
    expect(await refuse(provider({ clientMetadataUrl: CIMD }), m)).toBe(true);
    expect(m.registerRequests()).toHaveLength(1);
  });

  it('no way to register is a registration error', async () => {
    const m = await mock({ metadata: { registration_endpoint: null } });
    const error = (await rejection(refuse(provider(), m))) as AuthorizationError;
    expect(error).toBeInstanceOf(AuthorizationError);
    expect(error.reason).toBe('registration');
    expect(m.authorizeRequests()).toHaveLength(0);
  });

  it('a stored registration is reused with the same issuer', async () => {
    const m = await mock();
    const store = new MemoryTokenStore();
    await refuse(provider({ store }), m);
    m.refreshTokens.clear();
    await store.delete(`oauth:tokens ${m.issuer} ${m.serverUrl.href}`);
    expect(await refuse(provider({ store }), m)).toBe(true);
    expect(m.registerRequests()).toHaveLength(1);
    expect(m.authorizeRequests()).toHaveLength(2);
  });

  it('application_type: native for loopback and custom schemes, web for https', () => {
    expect(applicationType('http://127.0.0.1:1234/cb')).toBe('native');
    expect(applicationType('com.example.app:/cb')).toBe('native');
    expect(applicationType('https://app.example.com/cb')).toBe('web');
  });
});

describe('authorization server migration', () => {
  it('a new issuer in the metadata means a new registration and new tokens; nothing of the old one reaches it', async () => {
    const m1 = await mock();
    const m2 = await startMockOAuth(() => m1.serverUrl.href);
    try {
      const p = provider();
      const signal = new AbortController().signal;
      await refuse(p, m1, signal);
      const as1Client = m1.authorizeRequests()[0]!.query.get('client_id')!;
      const as1Token = (await p.authorization(m1.serverUrl, signal))!;
      // The resource server now lists the second authorization server.
      m1.stub.routes.set('/.well-known/oauth-protected-resource/mcp', () => ({
        json: { resource: m1.serverUrl.href, authorization_servers: [m2.issuer] },
      }));
      const next = new AbortController().signal;
      expect(await refuse(p, m1, next)).toBe(true);
      expect(m2.registerRequests()).toHaveLength(1);
      expect(m2.authorizeRequests()[0]!.query.get('client_id')).not.toBe(as1Client);
      for (const r of m2.stub.requests) {
        expect(JSON.stringify([r.url, r.body, r.headers])).not.toContain(as1Client);
        expect(JSON.stringify([r.url, r.body, r.headers])).not.toContain(as1Token.slice(7));
      }
      const header = (await p.authorization(m1.serverUrl, next))!;
      expect(m2.tokens.has(header.slice(7))).toBe(true);
      // No refresh was tried at the new server with the old server's refresh token.
      expect(m2.tokenRequests().map((r) => r.form.get('grant_type'))).toEqual(['authorization_code']);
    } finally {
      await m2.close();
    }
  });
});
