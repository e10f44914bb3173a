import { expect, test } from 'vitest';
import { startHarness, openSession, post, callTool, SseReader, ping } from '/work/main/test/http-server/support/harness.js';
test('smoke', async () => {
  const h = await startHarness();
  const sid = await openSession(h.url);
  console.log('sid', sid);
  console.log(await ping(h.url, sid));
  const r = await post(h.url, callTool(1, 'echo', { text: 'hi' }), { sessionId: sid });
  console.log(r.status, r.headers.get('content-type'), await r.text());
  const r2 = await post(h.url, callTool(2, 'log-then-echo'), { sessionId: sid });
  console.log(r2.status, r2.headers.get('content-type'));
  const reader = new SseReader(r2);
  for (let e = await reader.next(); e; e = await reader.next()) console.log(JSON.stringify(e));
  console.log('retry', reader.retry);
  await h.close();
});
