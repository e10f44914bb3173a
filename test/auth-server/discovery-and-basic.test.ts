/**
 * Review fixes (issue 11, item 5) seen from the wire: the introspection call's Basic credentials
 * are RFC 6749 §2.3.1 form-encoded, and the JWKS discovery of an issuer with a path also tries
 * the OpenID Connect path-insertion URL.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { IntrospectionVerifier } from 'keel-mcp/server';
import { discoverJwksUri } from '../../src/server/auth/issuer-metadata.js';
import { useProcessGuard } from '../helpers/guard.js';
import { json, KeyServer, RESOURCE } from './support.js';

useProcessGuard();

let as: KeyServer;
const seen: string[] = [];

beforeAll(async () => {
  as = await new KeyServer().start();
  as.routes.set('/introspect', (req: IncomingMessage, res: ServerResponse) => {
    seen.push(String(req.headers.authorization));
    json(res, { active: true, sub: 'alice', aud: RESOURCE });
  });
});
afterAll(() => as.close());

test("introspection sends Basic with id and secret form-encoded (WHATWG): ! ' ~ escaped, space as +", async () => {
  const verifier = new IntrospectionVerifier({
    endpoint: `${as.issuer}/introspect`,
    clientId: "rs!'~",
    clientSecret: 'a b:c',
    audience: RESOURCE,
  });
  seen.length = 0;
  expect((await verifier.verify('opaque')).subject).toBe('alice');
  expect(seen).toEqual([`Basic ${btoa('rs%21%27%7E:a+b%3Ac')}`]);
});

test('an issuer with a path whose metadata is only at the OIDC path-insertion URL: found there', async () => {
  const issuer = `${as.issuer}/tenant1`;
  const tried: string[] = [];
  for (const path of [
    '/.well-known/oauth-authorization-server/tenant1',
    '/tenant1/.well-known/openid-configuration',
  ]) {
    as.routes.set(path, (_req, res) => {
      tried.push(path);
      res.writeHead(404).end();
    });
  }
  as.routes.set('/.well-known/openid-configuration/tenant1', (_req, res) => {
    tried.push('oidc-insertion');
    json(res, { issuer, jwks_uri: `${as.issuer}/jwks` });
  });
  expect(await discoverJwksUri(issuer, 2_000)).toBe(`${as.issuer}/jwks`);
  expect(tried).toEqual(['/.well-known/oauth-authorization-server/tenant1', 'oidc-insertion']);
});
