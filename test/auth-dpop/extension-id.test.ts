/**
 * Issue 27 dpop: the DPoP extension identifier the conformance suite uses
 * (`io.modelcontextprotocol/auth/dpop`, a name of two segments) is a valid SEP-2133 identifier,
 * and a provider with `dpop` lists it for `client.extend`.
 */
import { expect, test } from 'vitest';
import { DPOP_EXTENSION_ID, dpopExtension, headlessRedirect, OAuthClientProvider } from 'keel-mcp/client';
import { isExtensionId } from 'keel-mcp/core';

test('issue 27 dpop: io.modelcontextprotocol/auth/dpop is a valid extension identifier; empty segments are not', () => {
  expect(DPOP_EXTENSION_ID).toBe('io.modelcontextprotocol/auth/dpop');
  expect(isExtensionId(DPOP_EXTENSION_ID)).toBe(true);
  expect(isExtensionId('io.modelcontextprotocol/auth//dpop')).toBe(false);
  expect(isExtensionId('io.modelcontextprotocol/auth/')).toBe(false);
});

test('issue 27 dpop: a provider lists the DPoP extension only with the dpop option', () => {
  const options = {
    clientMetadata: { client_name: 't', redirect_uris: ['http://127.0.0.1:1/cb'] },
    redirect: headlessRedirect({ redirectUri: 'http://127.0.0.1:1/cb' }),
  };
  expect(new OAuthClientProvider(options).extensions).toEqual([]);
  expect(new OAuthClientProvider({ ...options, dpop: true }).extensions).toEqual([dpopExtension()]);
});
