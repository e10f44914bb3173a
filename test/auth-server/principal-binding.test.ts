/**
 * Review fixes (issue 11, item 1): with auth on, whose a session (and a requestState) is must be
 * an issuer-qualified principal. A verified token naming neither a subject nor a client is
 * refused (401 invalid_token) instead of sharing an owner-less identity with every other such
 * token; the same `sub` at two authorization servers is two callers.
 */
import { afterEach, expect, test } from 'vitest';
import type { AuthInfo } from 'keel-mcp/core';
import { ownedBy } from '../../src/hosts/http/auth-gate.js';
import { createHttpHandler, type HttpHandler } from 'keel-mcp/http';
import { principalOf } from '../../src/server/modern/back-channel.js';
import { McpServer, type TokenVerifier } from 'keel-mcp/server';
import { useProcessGuard } from '../helpers/guard.js';
import { initializeRequest, JSON_AND_SSE } from '../http-server/support/harness.js';
import { RESOURCE, SpyLogger } from './support.js';

useProcessGuard();

let handler: HttpHandler | undefined;
afterEach(async () => {
  await handler?.close({ deadlineMs: 1_000 });
  handler = undefined;
});

/** Tokens are JSON of the AuthInfo the verifier resolves with (tests of what follows verification). */
const jsonVerifier: TokenVerifier = {
  verify: (token) => Promise.resolve(JSON.parse(Buffer.from(token, 'base64url').toString()) as AuthInfo),
};
const token = (auth: Partial<AuthInfo>) =>
  Buffer.from(JSON.stringify({ scopes: [], ...auth })).toString('base64url');

function start(
  authorizationServers = ['https://as-a.test', 'https://as-b.test'],
  logger?: SpyLogger,
): HttpHandler {
  const server = new McpServer({ name: 'p', version: '1' }, { onerror: undefined });
  server.tool('whoami', { description: 'w' }, (_a, ctx) => JSON.stringify(ctx.auth ?? null));
  handler = createHttpHandler(server, {
    auth: { resource: RESOURCE, authorizationServers, verifier: jsonVerifier },
    ...(logger && { logger }),
  });
  return handler;
}

function post(h: HttpHandler, bearer: string, body: unknown, sessionId?: string): Promise<Response> {
  const headers: Record<string, string> = {
    authorization: `Bearer ${bearer}`,
    'content-type': 'application/json',
    accept: JSON_AND_SSE,
  };
  if (sessionId !== undefined)
    Object.assign(headers, { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' });
  return h(new Request('http://127.0.0.1/mcp', { method: 'POST', headers, body: JSON.stringify(body) }));
}

const LIST = { jsonrpc: '2.0', id: 2, method: 'tools/list' };

async function openSession(h: HttpHandler, bearer: string): Promise<string> {
  const init = await post(h, bearer, initializeRequest());
  expect(init.status).toBe(200);
  await init.text();
  return init.headers.get('mcp-session-id')!;
}

test('a verified token naming no subject and no client: 401 invalid_token, no session is made', async () => {
  const h = start();
  const answer = await post(
    h,
    token({ issuer: 'https://as-a.test', claims: { user: 'x' } }),
    initializeRequest(),
  );
  expect(answer.status).toBe(401);
  expect(answer.headers.get('www-authenticate')).toContain(
    'error="invalid_token", error_description="The token names no subject or client"',
  );
  await answer.text();
  expect(h.sessionCount).toBe(0);
});

test('the same sub at two authorization servers is two owners: the other gets 404 on the session', async () => {
  const h = start();
  const atA = token({ subject: 'alice', issuer: 'https://as-a.test' });
  const atB = token({ subject: 'alice', issuer: 'https://as-b.test' });
  const sessionId = await openSession(h, atA);
  const other = await post(h, atB, LIST, sessionId);
  expect(other.status).toBe(404);
  await other.text();
  const mine = await post(h, atA, LIST, sessionId);
  expect(mine.status).toBe(200);
  await mine.text();
});

test('a client-credentials token (client id, no sub) owns its session, qualified by its issuer', async () => {
  const h = start();
  const sessionId = await openSession(h, token({ clientId: 'svc', issuer: 'https://as-a.test' }));
  const elsewhere = await post(h, token({ clientId: 'svc', issuer: 'https://as-b.test' }), LIST, sessionId);
  expect(elsewhere.status).toBe(404);
  await elsewhere.text();
  const same = await post(h, token({ clientId: 'svc', issuer: 'https://as-a.test' }), LIST, sessionId);
  expect(same.status).toBe(200);
  await same.text();
});

test('a verifier that names no issuer: the only listed authorization server is the issuer (ctx.auth too)', async () => {
  const h = start(['https://only.test']);
  const bearer = token({ subject: 'alice' });
  const sessionId = await openSession(h, bearer);
  const call = { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'whoami', arguments: {} } };
  const answer = await post(h, bearer, call, sessionId);
  const body = (await answer.json()) as { result: { content: { text: string }[] } };
  expect(JSON.parse(body.result.content[0]!.text)).toMatchObject({
    subject: 'alice',
    issuer: 'https://only.test',
  });
});

test('no issuer from the verifier with several servers listed: 500, logged once, no session', async () => {
  const logger = new SpyLogger();
  const h = start(['https://as-a.test', 'https://as-b.test'], logger);
  const answer = await post(h, token({ subject: 'alice' }), initializeRequest());
  expect(answer.status).toBe(500);
  await answer.text();
  expect(h.sessionCount).toBe(0);
  expect(logger.lines.filter((line) => line.includes('named no issuer'))).toHaveLength(1);
});

test('ownedBy: with auth on, a session without an owner belongs to nobody', () => {
  const auth: AuthInfo = { scopes: [] };
  expect(ownedBy({ owner: undefined }, auth)).toBe(false);
  expect(ownedBy({ owner: undefined }, undefined)).toBe(true);
  expect(ownedBy({ owner: principalOf({ subject: 'a', scopes: [] }) }, { subject: 'a', scopes: [] })).toBe(
    true,
  );
});

test('principalOf: qualified by the issuer when one is named; the same sub at two issuers differs', () => {
  const atA = principalOf({ subject: 'alice', issuer: 'https://as-a.test', scopes: [] });
  const atB = principalOf({ subject: 'alice', issuer: 'https://as-b.test', scopes: [] });
  expect(atA).toBe('iss:"https://as-a.test" sub:alice');
  expect(atA).not.toBe(atB);
  expect(principalOf({ token: 't', extra: { iss: 'https://as-a.test', sub: 'alice' } })).toBe(atA);
  expect(principalOf({ clientId: 'svc', issuer: 'https://as-a.test', scopes: [] })).toBe(
    'iss:"https://as-a.test" clientId:svc',
  );
  // No issuer named (a host's own authentication): unchanged.
  expect(principalOf({ subject: 'alice', scopes: [] })).toBe('sub:alice');
});
