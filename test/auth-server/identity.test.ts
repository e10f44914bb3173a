/**
 * Issue 11, resource server: the verified identity. It reaches handlers as `ctx.auth` (legacy
 * session and 2026-07-28 request) without the token, wins over what a host passed, binds
 * 2026-07-28 requestState to the subject, and owns the legacy session it created (a stolen session
 * id is useless with another subject's token). Real HTTP on 127.0.0.1.
 */
import { afterAll, afterEach, beforeAll, expect, test } from 'vitest';
import type { HttpServing } from 'keel-mcp/node';
import type { AuthInfo } from 'keel-mcp/core';
import { createHttpHandler } from 'keel-mcp/http';
import { McpServer } from 'keel-mcp/server';
import { useProcessGuard } from '../helpers/guard.js';
import { initializeRequest, JSON_AND_SSE, post } from '../http-server/support/harness.js';
import { registerMrtrTools } from '../modern/fixtures/mrtr-tools.mjs';
import {
  jwtAuth,
  KeyServer,
  mint,
  modernCall,
  protectedServer,
  serveProtected,
  signingKey,
  staticAuth,
  tok,
  type SigningKey,
} from './support.js';

useProcessGuard();

let keys: KeyServer;
let key: SigningKey;
let serving: HttpServing | undefined;

beforeAll(async () => {
  keys = await new KeyServer().start();
  key = await signingKey('k1');
  keys.keys = [key];
});
afterAll(() => keys.close());
afterEach(async () => {
  await serving?.close({ deadlineMs: 2_000 });
  serving = undefined;
});

/** A server whose `whoami` answers with `ctx.auth` as JSON (plus the 2026-07-28 MRTR tools). */
function server(): McpServer {
  const built = new McpServer({ name: 'identity', version: '1' }, { onerror: undefined });
  built.tool('whoami', { description: 'Who is calling' }, (_args, ctx) => JSON.stringify(ctx.auth ?? null));
  registerMrtrTools(built);
  return built;
}

function textOf(body: unknown): string {
  return (body as { result: { content: { text: string }[] } }).result.content[0]!.text;
}

async function openSession(url: string, token: string): Promise<string> {
  const headers = { authorization: `Bearer ${token}` };
  const init = await post(url, initializeRequest(), { headers });
  expect(init.status).toBe(200);
  await init.text();
  const sessionId = init.headers.get('mcp-session-id')!;
  const ack = await post(
    url,
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { headers, sessionId },
  );
  expect(ack.status).toBe(202);
  return sessionId;
}

function whoami(url: string, token: string, sessionId: string, id = 1): Promise<Response> {
  return post(
    url,
    { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'whoami', arguments: {} } },
    { headers: { authorization: `Bearer ${token}` }, sessionId },
  );
}

test('ctx.auth reaches a tool in a legacy session: the verified subject, scopes and claims, never the token', async () => {
  serving = await serveProtected(jwtAuth(keys), {}, server());
  const token = await mint(keys.issuer, key, {
    claims: { sub: 'alice', scope: 'mcp files:read', client_id: 'app' },
  });
  const sessionId = await openSession(serving.url, token);
  const response = await whoami(serving.url, token, sessionId);
  expect(response.status).toBe(200);
  const text = textOf(await response.json());
  expect(JSON.parse(text)).toMatchObject({
    subject: 'alice',
    clientId: 'app',
    scopes: ['mcp', 'files:read'],
    issuer: keys.issuer,
    audience: ['https://mcp.test/mcp'],
    claims: { sub: 'alice', scope: 'mcp files:read' },
  });
  expect(text).not.toContain(token);
  expect(text).not.toContain(token.split('.')[2]);
});

test('ctx.auth reaches a tool in a 2026-07-28 request', async () => {
  serving = await serveProtected(jwtAuth(keys), {}, server());
  const token = await mint(keys.issuer, key, { claims: { sub: 'bob' } });
  const { body, headers } = modernCall(1, 'whoami');
  const response = await post(serving.url, body, {
    headers: { ...headers, authorization: `Bearer ${token}` },
  });
  expect(response.status).toBe(200);
  expect(JSON.parse(textOf(await response.json()))).toMatchObject({ subject: 'bob', scopes: ['mcp'] });
});

test('the verified identity wins over a host-passed authInfo', async () => {
  const handler = createHttpHandler(server(), { auth: staticAuth(), sessions: false });
  const { body, headers } = modernCall(1, 'whoami');
  const response = await handler(
    new Request('http://127.0.0.1/mcp', {
      method: 'POST',
      headers: {
        ...headers,
        'content-type': 'application/json',
        accept: JSON_AND_SSE,
        authorization: `Bearer ${tok('alice', 'mcp')}`,
      },
      body: JSON.stringify(body),
    }),
    { authInfo: { subject: 'mallory', scopes: ['admin'] } },
  );
  // The static verifier names no issuer: the only listed authorization server is filled in.
  expect(JSON.parse(textOf(await response.json()))).toEqual({
    subject: 'alice',
    scopes: ['mcp'],
    issuer: 'https://as.test',
  });
  await handler.close();
});

test('without auth: ctx.auth is a host-passed AuthInfo-shaped value, else undefined', async () => {
  const handler = createHttpHandler(server(), { sessions: false });
  const call = async (authInfo: unknown) => {
    const { body, headers } = modernCall(1, 'whoami');
    const response = await handler(
      new Request('http://127.0.0.1/mcp', {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', accept: JSON_AND_SSE },
        body: JSON.stringify(body),
      }),
      { authInfo },
    );
    return JSON.parse(textOf(await response.json())) as unknown;
  };
  expect(await call({ subject: 'carol', scopes: ['x'] })).toEqual({ subject: 'carol', scopes: ['x'] });
  expect(await call({ user: 'carol' })).toBeNull();
  expect(await call(undefined)).toBeNull();
  await handler.close();
});

test("a session belongs to its creator: another subject's token with its id gets 404 (POST, GET, DELETE), the owner goes on", async () => {
  serving = await serveProtected(staticAuth(), {}, server());
  const url = serving.url;
  const alice = tok('alice', 'mcp');
  const mallory = tok('mallory', 'mcp');
  const sessionId = await openSession(url, alice);

  const stolen = await whoami(url, mallory, sessionId, 2);
  expect(stolen.status).toBe(404);
  expect(await stolen.json()).toMatchObject({ error: { message: 'Session not found' } });
  const get = await fetch(url, {
    headers: { accept: 'text/event-stream', authorization: `Bearer ${mallory}`, 'mcp-session-id': sessionId },
  });
  expect(get.status).toBe(404);
  await get.text();
  const del = await fetch(url, {
    method: 'DELETE',
    headers: { authorization: `Bearer ${mallory}`, 'mcp-session-id': sessionId },
  });
  expect(del.status).toBe(404);
  await del.text();
  expect(serving.handler.sessionCount).toBe(1);

  // The owner, with a fresh token (other scopes) for the same subject: still its session.
  const mine = await whoami(url, tok('alice', 'mcp', 'more'), sessionId, 3);
  expect(mine.status).toBe(200);
  expect(JSON.parse(textOf(await mine.json()))).toMatchObject({ subject: 'alice' });
  const ownDelete = await fetch(url, {
    method: 'DELETE',
    headers: { authorization: `Bearer ${alice}`, 'mcp-session-id': sessionId },
  });
  expect(ownDelete.status).toBe(200);
  await ownDelete.text();
  expect(serving.handler.sessionCount).toBe(0);
});

test('sessions.clientKey sees the verified AuthInfo: sessions limited per subject', async () => {
  serving = await serveProtected(
    staticAuth(),
    {
      sessions: {
        clientKey: (client) => (client.authInfo as AuthInfo | undefined)?.subject,
        maxPerClient: 1,
      },
    },
    server(),
  );
  await openSession(serving.url, tok('alice', 'mcp'));
  const second = await post(serving.url, initializeRequest(), {
    headers: { authorization: `Bearer ${tok('alice', 'mcp')}` },
  });
  expect(second.status).toBe(429);
  await second.text();
  await openSession(serving.url, tok('bob', 'mcp'));
  expect(serving.handler.sessionCount).toBe(2);
});

test('2026-07-28: a requestState minted for subject A is refused for subject B over HTTP', async () => {
  serving = await serveProtected(staticAuth(), {}, server());
  const url = serving.url;
  const caps = { 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } };
  const first = modernCall(1, 'ask_name', {}, caps);
  const round = await post(url, first.body, {
    headers: { ...first.headers, authorization: `Bearer ${tok('alice', 'mcp')}` },
  });
  const roundBody = (await round.json()) as { result: { resultType: string; requestState: string } };
  expect(roundBody.result.resultType).toBe('input_required');

  const retry = modernCall(2, 'ask_name', {}, caps);
  Object.assign(retry.body.params, {
    inputResponses: { user_name: { action: 'accept', content: { name: 'Ada' } } },
    requestState: roundBody.result.requestState,
  });
  const asBob = await post(url, retry.body, {
    headers: { ...retry.headers, authorization: `Bearer ${tok('bob', 'mcp')}` },
  });
  const refused = (await asBob.json()) as { error?: { code: number; message: string }; result?: unknown };
  expect(refused.result).toBeUndefined();
  expect(refused.error?.message).toMatch(/principal/);

  // The same retry by alice completes: the refusal was about the subject.
  const asAlice = await post(url, retry.body, {
    headers: { ...retry.headers, authorization: `Bearer ${tok('alice', 'mcp')}` },
  });
  expect(textOf(await asAlice.json())).toBe('Hello, Ada!');
});

test('protectedServer tools see ctx.auth too (resource and prompt contexts are the same type)', async () => {
  const built = protectedServer();
  let seen: unknown;
  built.resource('me', 'me://self', {}, (_uri, ctx) => {
    seen = ctx.auth?.subject;
    return 'me';
  });
  serving = await serveProtected(staticAuth(), {}, built);
  const token = tok('dora', 'mcp');
  const sessionId = await openSession(serving.url, token);
  const response = await post(
    serving.url,
    { jsonrpc: '2.0', id: 9, method: 'resources/read', params: { uri: 'me://self' } },
    { headers: { authorization: `Bearer ${token}` }, sessionId },
  );
  expect(response.status).toBe(200);
  await response.text();
  expect(seen).toBe('dora');
});
