/**
 * Issue 11: the README's "protecting a server" example (test/docs/snippets/server-auth.ts), run:
 * metadata served, 401 without a token, the tool answers with the token's subject, step-up 403
 * for the scoped tool. The issuer's JWKS is found through its RFC 8414 metadata.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { useProcessGuard } from '../helpers/guard.js';
import { initializeRequest, post } from '../http-server/support/harness.js';
import { protectServer } from '../docs/snippets/auth-server.js';
import { KeyServer, mint, RESOURCE, signingKey, type SigningKey } from './support.js';

useProcessGuard();

let keys: KeyServer;
let key: SigningKey;
beforeAll(async () => {
  keys = await new KeyServer().start();
  key = await signingKey('k1', 'ES256');
  keys.keys = [key];
});
afterAll(() => keys.close());

test('the README example protects its server', async () => {
  const serving = await protectServer(keys.issuer, RESOURCE);
  try {
    const metadata = await fetch(new URL('/.well-known/oauth-protected-resource/mcp', serving.url));
    expect(await metadata.json()).toMatchObject({ resource: RESOURCE, authorization_servers: [keys.issuer] });

    const anonymous = await post(serving.url, initializeRequest());
    expect(anonymous.status).toBe(401);
    await anonymous.text();

    const headers = {
      authorization: `Bearer ${await mint(keys.issuer, key, { claims: { sub: 'ada', scope: 'files:read' } })}`,
    };
    const init = await post(serving.url, initializeRequest(), { headers });
    const sessionId = init.headers.get('mcp-session-id')!;
    await init.text();
    await (
      await post(serving.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, { headers, sessionId })
    ).text();
    const call = (id: number, name: string) =>
      post(
        serving.url,
        { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } },
        { headers, sessionId },
      );
    const whoami = await call(1, 'whoami');
    expect(await whoami.json()).toMatchObject({ result: { content: [{ type: 'text', text: 'ada' }] } });
    const upload = await call(2, 'upload');
    expect(upload.status).toBe(403);
    expect(upload.headers.get('www-authenticate')).toContain('scope="files:read files:write"');
    await upload.text();
  } finally {
    await serving.close({ deadlineMs: 2_000 });
  }
});
