/** The machine grants are part of the `keel-mcp/client` entry point (src/client/index.ts). */
import { expect, test } from 'vitest';
import * as client from 'keel-mcp/client';

test('keel-mcp/client exports the machine grants and their error', () => {
  expect(typeof client.clientCredentialsAuth).toBe('function');
  expect(typeof client.crossAppAccessAuth).toBe('function');
  expect(new client.TokenEndpointError('refused', 400, 'invalid_client')).toBeInstanceOf(
    client.AuthorizationError,
  );
  const auth = client.clientCredentialsAuth({
    issuer: 'https://auth.example.com',
    credentials: { clientId: 'svc', clientSecret: 's' },
  });
  expect(typeof auth.authorization).toBe('function');
});
