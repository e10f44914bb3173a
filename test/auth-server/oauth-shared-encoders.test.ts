import { describe, expect, it } from 'vitest';
import { oauthBasicAuthorization } from '../../src/core/oauth-basic.js';
import { authorizationServerMetadataUrls } from '../../src/core/oauth-metadata-urls.js';

function decodeBasic(header: string): string {
  expect(header.startsWith('Basic ')).toBe(true);
  return atob(header.slice('Basic '.length));
}

describe('oauthBasicAuthorization (RFC 6749 §2.3.1)', () => {
  it('form-encodes id and secret before Base64: space is +, a colon is escaped', () => {
    expect(decodeBasic(oauthBasicAuthorization('my app', 's:cret'))).toBe('my+app:s%3Acret');
  });

  it('leaves the WHATWG unreserved set (*-._) alone and escapes ~ ! and non-ASCII', () => {
    expect(decodeBasic(oauthBasicAuthorization('a*-._b', '~!é'))).toBe('a*-._b:%7E%21%C3%A9');
  });

  it('a plain id and secret are unchanged', () => {
    expect(oauthBasicAuthorization('mcp-server', 'secret')).toBe(`Basic ${btoa('mcp-server:secret')}`);
  });
});

describe('authorizationServerMetadataUrls', () => {
  it('an issuer with a path: RFC 8414 insertion, OIDC insertion, OIDC appending, in that order', () => {
    expect(authorizationServerMetadataUrls('https://auth.example.com/tenant1/')).toEqual([
      'https://auth.example.com/.well-known/oauth-authorization-server/tenant1',
      'https://auth.example.com/.well-known/openid-configuration/tenant1',
      'https://auth.example.com/tenant1/.well-known/openid-configuration',
    ]);
  });

  it('an issuer without a path: RFC 8414 then OIDC, each once', () => {
    expect(authorizationServerMetadataUrls(new URL('https://auth.example.com'))).toEqual([
      'https://auth.example.com/.well-known/oauth-authorization-server',
      'https://auth.example.com/.well-known/openid-configuration',
    ]);
  });
});
