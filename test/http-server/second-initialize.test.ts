/**
 * Issue 9 item 3: a second `initialize` on a live session is refused (400, -32600, as the official
 * SDKs answer), and the session stays exactly as it was — in particular its negotiated version,
 * on which resumability depends.
 */
import { expect, test } from 'vitest';
import { useProcessGuard, within } from '../helpers/guard.js';
import {
  callTool,
  initializeRequest,
  openSession,
  ping,
  post,
  SseReader,
  startHarness,
} from './support/harness.js';

useProcessGuard();

test('a second initialize on a live session gets 400 -32600; version and resumability are kept', async () => {
  const h = await startHarness();
  try {
    const sessionId = await openSession(h.url);
    const [session] = [...h.server.sessions];
    expect(session?.protocolVersion).toBe('2025-11-25');

    const again = initializeRequest('re-init');
    (again.params as { protocolVersion: string }).protocolVersion = '2025-03-26';
    const refused = await post(h.url, again, { sessionId });
    expect(refused.status).toBe(400);
    expect(refused.headers.get('mcp-session-id')).toBeNull();
    expect(await refused.json()).toEqual({
      jsonrpc: '2.0',
      id: 're-init',
      error: { code: -32600, message: 'Invalid Request: Server already initialized' },
    });

    expect(h.server.sessions.size).toBe(1);
    expect(session?.protocolVersion).toBe('2025-11-25');
    expect(await ping(h.url, sessionId)).toMatchObject({ result: {} });
    // Still resumable: an SSE answer opens with a priming event that carries an id.
    const events = new SseReader(await post(h.url, callTool(1, 'log-then-echo'), { sessionId }));
    const priming = await within(events.next());
    expect(priming).toMatchObject({ data: '' });
    expect(priming?.id).toBeTruthy();
    expect((await within(events.rest())).map((m) => m.method ?? m.id)).toEqual(['notifications/message', 1]);
  } finally {
    await h.close();
  }
});
