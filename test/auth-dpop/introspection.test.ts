/**
 * Issue 27 dpop, opaque tokens: with `IntrospectionVerifier` the binding comes from the
 * introspection answer's `cnf.jkt` (RFC 9449 §6.2); the same proof checks apply.
 */
import { afterAll, afterEach, beforeAll, expect, test } from 'vitest';
import type { HttpServing } from 'keel-mcp/node';
import { IntrospectionVerifier } from 'keel-mcp/server';
import { useProcessGuard } from '../helpers/guard.js';
import { initializeRequest, post } from '../http-server/support/harness.js';
import { json, KeyServer, RESOURCE, serveProtected, staticAuth } from '../auth-server/support.js';
import { proof, proofKey, type ProofKey } from './support.js';

useProcessGuard();

const TOKEN = 'opaque-token-1';
let as: KeyServer;
let client: ProofKey;
let serving: HttpServing | undefined;

beforeAll(async () => {
  as = await new KeyServer().start();
  client = await proofKey();
  as.routes.set('/introspect', (_req, res, body) => {
    const token = new URLSearchParams(body).get('token');
    json(
      res,
      token === TOKEN
        ? { active: true, sub: 'alice', aud: RESOURCE, scope: 'mcp', cnf: { jkt: client.jkt } }
        : { active: false },
    );
  });
});
afterAll(() => as.close());
afterEach(async () => {
  await serving?.close({ deadlineMs: 2_000 });
  serving = undefined;
});

async function start(): Promise<string> {
  const verifier = new IntrospectionVerifier({
    endpoint: `${as.issuer}/introspect`,
    clientId: 'rs',
    clientSecret: 'secret',
    audience: RESOURCE,
  });
  serving = await serveProtected(staticAuth({ authorizationServers: [as.issuer], verifier, dpop: true }));
  return serving.url;
}

async function status(url: string, headers: Record<string, string>) {
  const response = await post(url, initializeRequest(), { headers });
  await response.text();
  return { status: response.status, challenge: response.headers.get('www-authenticate') ?? '' };
}

test('issue 27 dpop: an introspected token bound by cnf.jkt works with a proof of that key', async () => {
  const url = await start();
  expect(
    (await status(url, { authorization: `DPoP ${TOKEN}`, dpop: await proof(client, TOKEN, RESOURCE) }))
      .status,
  ).toBe(200);
});

test('issue 27 dpop: an introspected bound token is refused as Bearer and with another key', async () => {
  const url = await start();
  expect((await status(url, { authorization: `Bearer ${TOKEN}` })).challenge).toMatch(
    /^DPoP error="invalid_token"/,
  );
  const thief = await proofKey();
  const other = await status(url, {
    authorization: `DPoP ${TOKEN}`,
    dpop: await proof(thief, TOKEN, RESOURCE),
  });
  expect(other.status).toBe(401);
  expect(other.challenge).toMatch(/^DPoP error="invalid_dpop_proof"/);
});
