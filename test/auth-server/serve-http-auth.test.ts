/**
 * Issue 11: `serveHttp(server, { auth: (url) => options })`, for a resource URL that is the URL
 * served (port 0): the options are made once the server listens; bad ones close it again.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { serveHttp } from 'keel-mcp/node';
import { JwtVerifier } from 'keel-mcp/server';
import { useProcessGuard } from '../helpers/guard.js';
import { initializeRequest, post } from '../http-server/support/harness.js';
import { KeyServer, mint, protectedServer, signingKey, type SigningKey } from './support.js';

useProcessGuard();

let keys: KeyServer;
let key: SigningKey;
beforeAll(async () => {
  keys = await new KeyServer().start();
  key = await signingKey('k1');
  keys.keys = [key];
});
afterAll(() => keys.close());

test('auth as a function of the served URL: metadata and audience are that URL', async () => {
  const serving = await serveHttp(protectedServer(), {
    port: 0,
    keepAliveMs: 0,
    auth: (url) => ({
      resource: url,
      authorizationServers: [keys.issuer],
      verifier: new JwtVerifier({ issuer: keys.issuer, audience: url, jwksUri: keys.jwksUri }),
    }),
  });
  try {
    const metadata = await fetch(new URL('/.well-known/oauth-protected-resource/mcp', serving.url));
    expect(await metadata.json()).toMatchObject({ resource: serving.url });
    const refused = await post(serving.url, initializeRequest());
    expect(refused.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${new URL('/.well-known/oauth-protected-resource/mcp', serving.url).href}"`,
    );
    await refused.text();
    const token = await mint(keys.issuer, key, { audience: serving.url });
    const accepted = await post(serving.url, initializeRequest(), {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(accepted.status).toBe(200);
    await accepted.text();
  } finally {
    await serving.close({ deadlineMs: 2_000 });
  }
});

test('auth as a function that returns bad options: serveHttp rejects and stops listening', async () => {
  let seenUrl: string | undefined;
  await expect(
    serveHttp(protectedServer(), {
      port: 0,
      auth: (url) => {
        seenUrl = url;
        return {
          resource: `${url}?bad=1`,
          authorizationServers: ['https://as.test'],
          verifier: { verify: () => Promise.reject(new Error('x')) },
        };
      },
    }),
  ).rejects.toThrow(TypeError);
  expect(seenUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  // Nothing listens any more (the guard also checks no server handle is left).
  await expect(fetch(seenUrl!)).rejects.toThrow();
});
