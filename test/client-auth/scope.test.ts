import { describe, expect, it } from 'vitest';
import { parseBearerChallenge, type DiscoveredAuthorization } from 'keel-mcp/client';
import { selectScopes } from '../../src/client/auth/index.js';

function found(prmScopes?: string[], asScopes?: string[]): DiscoveredAuthorization {
  return {
    serverUrl: new URL('https://mcp.example.com/mcp'),
    resource: 'https://mcp.example.com/mcp',
    resourceMetadata: {
      resource: 'https://mcp.example.com/mcp',
      authorization_servers: ['https://auth.example.com'],
      ...(prmScopes && { scopes_supported: prmScopes }),
    },
    resourceMetadataUrl: new URL('https://mcp.example.com/.well-known/oauth-protected-resource/mcp'),
    authorizationServer: {
      issuer: 'https://auth.example.com',
      ...(asScopes && { scopes_supported: asScopes }),
    },
    issuer: 'https://auth.example.com',
    source: 'metadata',
  };
}
const challenge = (scope?: string) =>
  parseBearerChallenge(scope === undefined ? 'Bearer' : `Bearer scope="${scope}"`);

describe('scope selection', () => {
  it('the challenge scope first, then scopes_supported, else none', () => {
    expect(selectScopes(found(['a', 'b']), challenge('c d'), undefined)).toEqual(['c', 'd']);
    expect(selectScopes(found(['a', 'b']), challenge(), undefined)).toEqual(['a', 'b']);
    expect(selectScopes(found(), challenge(), undefined)).toEqual([]);
  });

  it('an override replaces the selection', () => {
    expect(selectScopes(found(['a']), challenge('c'), undefined, 'x y')).toEqual(['x', 'y']);
  });

  it('step-up keeps what was requested before', () => {
    expect(selectScopes(found(['p']), challenge('write'), ['read'])).toEqual(['read', 'write']);
  });

  it('offline_access only when the authorization server lists it, and never alone', () => {
    expect(selectScopes(found(['a'], ['a', 'offline_access']), challenge(), undefined)).toEqual([
      'a',
      'offline_access',
    ]);
    expect(selectScopes(found(['a'], ['a']), challenge(), undefined)).toEqual(['a']);
    expect(selectScopes(found(['a', 'offline_access'], ['a']), challenge(), undefined)).toEqual(['a']);
    expect(selectScopes(found(undefined, ['offline_access']), challenge(), undefined)).toEqual([]);
  });
});
