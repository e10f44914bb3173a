/**
 * Review 2: concurrent checks of one token share one introspection call, and that call belongs
 * to none of them: the first caller giving up (its signal aborts) fails only that caller.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { IntrospectionVerifier } from 'keel-mcp/server';
import { useProcessGuard } from '../helpers/guard.js';
import { json, KeyServer, RESOURCE } from './support.js';

useProcessGuard();

let as: KeyServer;
beforeAll(async () => {
  as = await new KeyServer().start();
});
afterAll(() => as.close());

test('one caller giving up does not fail the others sharing its introspection call', async () => {
  let answer!: () => void;
  const held = new Promise<void>((resolve) => (answer = resolve));
  let calls = 0;
  as.routes.set('/introspect', (_req: IncomingMessage, res: ServerResponse) => {
    calls += 1;
    const exp = Math.floor(Date.now() / 1000) + 300;
    void held.then(() => json(res, { active: true, sub: 'alice', aud: RESOURCE, exp }));
  });
  const checker = new IntrospectionVerifier({
    endpoint: `${as.issuer}/introspect`,
    clientId: 'rs',
    clientSecret: 'secret',
    audience: RESOURCE,
  });
  const quitter = new AbortController();
  const first = checker.verify('shared-token', quitter.signal).then(
    () => 'resolved',
    (e: unknown) => e,
  );
  const second = checker.verify('shared-token', new AbortController().signal);
  quitter.abort(new Error('the first client left'));
  expect(await first).toEqual(new Error('the first client left'));
  answer();
  expect((await second).subject).toBe('alice');
  expect(calls).toBe(1);
});
