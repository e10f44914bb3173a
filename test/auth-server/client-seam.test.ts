/**
 * Issue 11: Keel's HTTP client transport (its `auth` seam, an `HttpAuthProvider`) against Keel's
 * resource server, both real, over 127.0.0.1: the 401 challenge leads to a token, the 403
 * insufficient_scope challenge names the scopes to step up to, and the same session goes on.
 */
import { afterEach, expect, test } from 'vitest';
import type { HttpServing } from 'keel-mcp/node';
import type { AuthChallenge, HttpAuthProvider } from 'keel-mcp/core';
import { useProcessGuard } from '../helpers/guard.js';
import { connectClient } from '../http-client/support/connect.js';
import { PRM_URL, serveProtected, staticAuth, tok } from './support.js';

useProcessGuard();

let serving: HttpServing | undefined;
afterEach(async () => {
  await serving?.close({ deadlineMs: 2_000 });
  serving = undefined;
});

/** A provider that has no token at first and "authorizes" for the scopes each challenge names. */
function stepUpProvider(): HttpAuthProvider & { challenges: AuthChallenge[]; token: string | undefined } {
  const state = {
    challenges: [] as AuthChallenge[],
    token: undefined as string | undefined,
    authorization: async () => (state.token === undefined ? undefined : `Bearer ${state.token}`),
    challenge: async (challenge: AuthChallenge) => {
      state.challenges.push(challenge);
      const scope = /scope="([^"]*)"/.exec(challenge.wwwAuthenticate ?? '')?.[1];
      if (scope === undefined) return false;
      state.token = tok('alice', ...scope.split(' '));
      return true;
    },
  };
  return state;
}

test('401 → token, 403 insufficient_scope → step-up, on the same session', async () => {
  serving = await serveProtected(staticAuth());
  const auth = stepUpProvider();
  const { client, transport } = await connectClient(serving.url, { auth, openGetStream: false });
  expect(auth.challenges).toEqual([
    {
      url: new URL(serving.url),
      status: 401,
      wwwAuthenticate: `Bearer resource_metadata="${PRM_URL}", scope="mcp"`,
      headers: expect.any(Headers),
    },
  ]);
  const sessionId = transport.sessionId;
  expect(sessionId).toBeDefined();

  const result = await client.request('tools/call', { name: 'write', arguments: {} });
  expect(result).toMatchObject({ content: [{ type: 'text', text: 'written' }] });
  expect(auth.challenges.slice(1)).toEqual([
    {
      url: new URL(serving.url),
      status: 403,
      wwwAuthenticate: `Bearer error="insufficient_scope", scope="mcp files:write", resource_metadata="${PRM_URL}", error_description="Missing scope: files:write"`,
      headers: expect.any(Headers),
    },
  ]);
  // The stepped-up token is for the same subject: the session is still its own.
  expect(transport.sessionId).toBe(sessionId);
  expect(serving.handler.sessionCount).toBe(1);
  await client.close();
});
