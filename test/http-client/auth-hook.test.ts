/**
 * Issue 11: the HTTP client transport's `auth` seam. A gate in the `fetch` in front of a real Keel
 * server (127.0.0.1) refuses requests without the token it currently accepts; the provider is a
 * scripted `HttpAuthProvider`. What is checked: the header reaches every request (POST, GET,
 * DELETE), a refusal goes to the provider and the same request is resent once it has new
 * credentials, giving up surfaces the server's refusal, and a provider that never gives up is cut
 * off.
 */
import { afterEach, expect, test } from 'vitest';
import { serveHttp, type HttpServing } from 'keel-mcp/node';
import {
  AuthorizationError,
  ConnectionClosedError,
  type AuthChallenge,
  type HttpAuthProvider,
} from 'keel-mcp/core';
import { McpServer } from 'keel-mcp/server';
import { HttpTransportError } from 'keel-mcp/http';
import { useProcessGuard } from '../helpers/guard.js';
import { connectClient, outcome } from './support/connect.js';

useProcessGuard();

const CHALLENGE = 'Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource/mcp"';

interface Seen {
  method: string;
  authorization: string | null;
  refused: boolean;
}

let serving: HttpServing | undefined;
afterEach(async () => {
  await serving?.close({ deadlineMs: 2_000 });
  serving = undefined;
});

async function start(): Promise<string> {
  const server = new McpServer({ name: 'auth-hook', version: '1' });
  server.tool('echo', { description: 'echo' }, () => ({ content: [{ type: 'text', text: 'ok' }] }));
  serving = await serveHttp(server, { port: 0, host: '127.0.0.1' });
  return serving.url;
}

/** A fetch that lets through only `Bearer <accepted.value>`; `status` is what it refuses with. */
function gate(accepted: { value: string }, seen: Seen[], status = 401): typeof fetch {
  return async (input, init) => {
    const headers = new Headers(init?.headers);
    const authorization = headers.get('authorization');
    const refused = authorization !== `Bearer ${accepted.value}`;
    seen.push({ method: init?.method ?? 'GET', authorization, refused });
    if (!refused) return fetch(input, init);
    const body = { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'token refused' } };
    return new Response(JSON.stringify(body), {
      status,
      headers: { 'content-type': 'application/json', 'www-authenticate': CHALLENGE },
    });
  };
}

/** A provider that hands out `token`, and on a challenge "obtains" the next one from `renew`. */
function provider(
  token: { value: string },
  renew: (challenge: AuthChallenge) => boolean,
): HttpAuthProvider & {
  challenges: AuthChallenge[];
} {
  const challenges: AuthChallenge[] = [];
  return {
    challenges,
    authorization: async () => `Bearer ${token.value}`,
    challenge: async (challenge) => {
      challenges.push(challenge);
      return renew(challenge);
    },
  };
}

test('the Authorization header reaches POST, GET and DELETE', async () => {
  const url = await start();
  const seen: Seen[] = [];
  const token = { value: 't1' };
  const auth = provider(token, () => false);
  const { client } = await connectClient(url, { auth, fetch: gate(token, seen) });
  await client.request('tools/list', {});
  await client.close();
  expect(new Set(seen.map((s) => s.method))).toEqual(new Set(['POST', 'GET', 'DELETE']));
  expect(seen.every((s) => s.authorization === 'Bearer t1' && !s.refused)).toBe(true);
  expect(auth.challenges).toHaveLength(0);
});

test('a 401 goes to the provider once; the same request is resent with the new token', async () => {
  const url = await start();
  const seen: Seen[] = [];
  const accepted = { value: 't1' };
  const token = { value: 't1' };
  const auth = provider(token, () => {
    token.value = 't2';
    return true;
  });
  const { client } = await connectClient(url, { auth, fetch: gate(accepted, seen), openGetStream: false });
  accepted.value = 't2'; // the server rotates: t1 is no longer good
  const result = await client.request('tools/list', {});
  expect((result.tools as unknown[]).length).toBe(1);
  expect(auth.challenges).toEqual([
    { url: new URL(url), status: 401, wwwAuthenticate: CHALLENGE, headers: expect.any(Headers) },
  ]);
  const posts = seen.filter((s) => s.method === 'POST');
  expect(posts.slice(-2)).toEqual([
    { method: 'POST', authorization: 'Bearer t1', refused: true },
    { method: 'POST', authorization: 'Bearer t2', refused: false },
  ]);
  await client.close();
});

test('403 takes the same path (step-up)', async () => {
  const url = await start();
  const seen: Seen[] = [];
  const accepted = { value: 'narrow' };
  const token = { value: 'narrow' };
  const auth = provider(token, (challenge) => {
    token.value = challenge.status === 403 ? 'wide' : token.value;
    return true;
  });
  const { client } = await connectClient(url, {
    auth,
    fetch: gate(accepted, seen, 403),
    openGetStream: false,
  });
  accepted.value = 'wide';
  await client.request('tools/list', {});
  expect(auth.challenges.map((c) => c.status)).toEqual([403]);
  await client.close();
});

test('a provider that gives up: the request fails with the server refusal (status and message)', async () => {
  const url = await start();
  const seen: Seen[] = [];
  const accepted = { value: 't1' };
  const token = { value: 't1' };
  const auth = provider(token, () => false);
  const { client } = await connectClient(url, { auth, fetch: gate(accepted, seen), openGetStream: false });
  accepted.value = 'other';
  const error = await outcome(client.request('tools/list', {}));
  expect(error).toBeInstanceOf(ConnectionClosedError);
  const cause = (error as ConnectionClosedError).cause;
  expect(cause).toBeInstanceOf(HttpTransportError);
  expect((cause as HttpTransportError).status).toBe(401);
  expect((cause as HttpTransportError).message).toContain('token refused');
  expect(auth.challenges).toHaveLength(1);
  await client.close();
});

test('a provider that rejects: its error is the cause the caller sees', async () => {
  const url = await start();
  const seen: Seen[] = [];
  const accepted = { value: 't1' };
  const token = { value: 't1' };
  const failure = new Error('login cancelled by the user');
  const auth: HttpAuthProvider = {
    authorization: async () => `Bearer ${token.value}`,
    challenge: async () => {
      throw failure;
    },
  };
  const { client } = await connectClient(url, { auth, fetch: gate(accepted, seen), openGetStream: false });
  accepted.value = 'other';
  const error = await outcome(client.request('tools/list', {}));
  expect(error).toBeInstanceOf(ConnectionClosedError);
  expect((error as ConnectionClosedError).cause).toBe(failure);
  // The transport stays usable once credentials are good again.
  accepted.value = 't1';
  await client.request('tools/list', {});
  await client.close();
});

test('a provider that never gives up is cut off after 5 resends (6 refusals in all)', async () => {
  const url = await start();
  const seen: Seen[] = [];
  const accepted = { value: 't1' };
  const token = { value: 't1' };
  const auth = provider(token, () => true);
  const { client } = await connectClient(url, { auth, fetch: gate(accepted, seen), openGetStream: false });
  accepted.value = 'never';
  const before = seen.length;
  const error = await outcome(client.request('tools/list', {}));
  expect(((error as ConnectionClosedError).cause as HttpTransportError).status).toBe(401);
  expect(seen.slice(before).filter((s) => s.refused)).toHaveLength(6);
  expect(auth.challenges).toHaveLength(5);
  await client.close();
});

test('without a provider a 401 is not retried and no Authorization header is sent', async () => {
  const url = await start();
  const seen: Seen[] = [];
  const error = await outcome(
    connectClient(url, { fetch: gate({ value: 'x' }, seen), openGetStream: false }),
  );
  expect(error).toBeInstanceOf(Error);
  expect(seen).toHaveLength(1);
  expect(seen[0]).toEqual({ method: 'POST', authorization: null, refused: true });
});

test('a refusal from another origin after a redirect is not handed to the provider (review: its challenge must not steer discovery)', async () => {
  const { createServer } = await import('node:http');
  const other = createServer((_req, res) => {
    res.writeHead(401, { 'www-authenticate': 'Bearer resource_metadata="http://127.0.0.1:1/evil"' });
    res.end();
  });
  await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
  const otherPort = (other.address() as { port: number }).port;
  const redirector = createServer((_req, res) => {
    res.writeHead(307, { location: `http://127.0.0.1:${otherPort}/mcp` });
    res.end();
  });
  await new Promise<void>((resolve) => redirector.listen(0, '127.0.0.1', resolve));
  const port = (redirector.address() as { port: number }).port;
  try {
    const auth = provider({ value: 't1' }, () => true);
    const error = await outcome(
      connectClient(`http://127.0.0.1:${port}/mcp`, { auth, openGetStream: false }),
    );
    expect(error).toBeInstanceOf(Error);
    expect(auth.challenges).toHaveLength(0);
  } finally {
    other.closeAllConnections();
    redirector.closeAllConnections();
    await new Promise((resolve) => other.close(resolve));
    await new Promise((resolve) => redirector.close(resolve));
  }
});

test('an AuthorizationError from the provider is what the caller gets, unwrapped (the connection is fine)', async () => {
  const url = await start();
  const seen: Seen[] = [];
  const accepted = { value: 't1' };
  const refusedLogin = new AuthorizationError('redirect-failed', 'the user closed the browser');
  const auth: HttpAuthProvider = {
    authorization: async () => 'Bearer t1',
    challenge: async () => {
      throw refusedLogin;
    },
  };
  const { client } = await connectClient(url, { auth, fetch: gate(accepted, seen), openGetStream: false });
  accepted.value = 'other';
  expect(await outcome(client.request('tools/list', {}))).toBe(refusedLogin);
  accepted.value = 't1';
  await client.request('tools/list', {});
  await client.close();
});
