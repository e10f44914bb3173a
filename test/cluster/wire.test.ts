/**
 * Issue 12: the tunnel's relay messages as the wire sees them. Malformed messages and unknown
 * exchanges are ignored, never a crash; the owner runs its whole pipeline on a relayed request;
 * bodies travel as text or base64; host facts travel along; the medium losing messages fails
 * what is in flight; a relayed client that stops reading is cut like a local one.
 */
import { afterEach, expect, test } from 'vitest';
import type { JsonObject } from 'keel-mcp/core';
import { useProcessGuard, within } from '../helpers/guard.js';
import { SseReader } from '../http-server/support/harness.js';
import {
  callTool,
  JSON_AND_SSE,
  openSession,
  request,
  startCluster,
  until,
  type Cluster,
  type Node,
} from './support/cluster.js';

useProcessGuard();

let cluster: Cluster | undefined;
afterEach(async () => {
  await cluster?.close();
  cluster = undefined;
});

function two(c: Cluster): [Node, Node] {
  return c.nodes as [Node, Node];
}

test('malformed relay messages and unknown exchanges are ignored; a well-formed open is served by the full pipeline', async () => {
  const debug: string[] = [];
  cluster = startCluster(2, { logger: { debug: (message) => void debug.push(message), error() {} } });
  const [a] = two(cluster);
  const sessionId = await openSession(a);
  const intruder = cluster.hub.node('intruder');
  const received: JsonObject[] = [];
  await intruder.listen({ message: (_from, text) => void received.push(JSON.parse(text)), broadcast() {} });
  const headers = (more: [string, string][] = []): [string, string][] => [
    ['content-type', 'application/json'],
    ['accept', JSON_AND_SSE],
    ['mcp-session-id', sessionId],
    ['host', '127.0.0.1'],
    ...more,
  ];
  const body = JSON.stringify(callTool(1, 'whoami'));
  for (const text of [
    'not json',
    '[1,2]',
    JSON.stringify({ t: 'head', x: 'nope', s: 200, h: [] }),
    JSON.stringify({ t: 'data', x: 'nope', d: 'x' }),
    JSON.stringify({ t: 'end', x: 'nope' }),
    JSON.stringify({ t: 'gone', x: 'nope' }),
    JSON.stringify({ t: 'open', x: 'bad-headers', m: 'POST', h: [['bad name', 'v']], b: body }),
    JSON.stringify({ t: 'open', x: 'no-method', h: headers(), b: body }),
    JSON.stringify({ t: 'what', x: '1' }),
  ]) {
    await intruder.send('node-1', text);
  }
  // Served: the owner's answer comes back as one head with the complete body.
  await intruder.send('node-1', JSON.stringify({ t: 'open', x: 'ok', m: 'POST', h: headers(), b: body }));
  // Not UTF-8: carried as base64, answered by the owner's own parse check.
  await intruder.send(
    'node-1',
    JSON.stringify({ t: 'open', x: 'b64', m: 'POST', h: headers(), b64: btoa('\xff\xfe') }),
  );
  // The owner re-checks Host: the forwarder decides nothing but where the request goes.
  await intruder.send(
    'node-1',
    JSON.stringify({
      t: 'open',
      x: 'host',
      m: 'POST',
      h: [...headers().slice(0, 3), ['host', 'evil.example']],
      b: body,
    }),
  );
  await until(() => received.length === 5, 'three heads and two gones');
  // A head or data for an exchange the receiver does not have is answered `gone` (the sender
  // drops it); nothing else unknown is answered.
  expect(received.filter((message) => message.t === 'gone')).toEqual([
    { t: 'gone', x: 'nope' },
    { t: 'gone', x: 'nope' },
  ]);
  const heads = received.filter((message) => message.t === 'head');
  const byX = Object.fromEntries(heads.map((message) => [message.x, message]));
  expect(Object.keys(byX).sort()).toEqual(['b64', 'host', 'ok']);
  expect(byX.ok).toMatchObject({ t: 'head', s: 200 });
  expect(JSON.parse(JSON.parse(byX.ok!.b as string).result.content[0].text)).toMatchObject({
    node: 'node-1',
    sessionId,
  });
  expect(byX.b64).toMatchObject({ s: 400 });
  expect(JSON.parse(byX.b64!.b as string)).toMatchObject({ error: { code: -32700 } });
  expect(byX.host).toMatchObject({ s: 403 });
  // One debug line per ignored message.
  expect(debug.filter((line) => line.startsWith('relay:'))).toHaveLength(9);
  await intruder.close();
  // The owner still serves the session directly.
  expect((await request(a, 'POST', { sessionId, body: callTool(2, 'whoami') })).status).toBe(200);
});

test('a relayed POST carries its body (text or base64) and the host facts (remote address, JSON authInfo)', async () => {
  cluster = startCluster(2);
  const [a, b] = two(cluster);
  const sessionId = await openSession(a);
  const extra = { remoteAddress: '10.0.0.7', authInfo: { user: 'ada', scopes: ['x'] } };
  const response = await request(b, 'POST', { sessionId, body: callTool(1, 'whoami'), extra });
  const result = (await response.json()) as { result: { content: { text: string }[] } };
  expect(JSON.parse(result.result.content[0]!.text)).toMatchObject({ node: 'node-1', auth: extra.authInfo });
  const open = b.relay.sent.find((entry) => entry.message.t === 'open')!.message;
  expect(open).toMatchObject({ m: 'POST', b: JSON.stringify(callTool(1, 'whoami')), e: extra });
  expect(open.b64).toBeUndefined();

  const binary = await b.handler(
    new Request('http://127.0.0.1/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: JSON_AND_SSE, 'mcp-session-id': sessionId },
      body: new Uint8Array([0xff, 0xfe, 0x7b]),
    }),
  );
  expect(binary.status).toBe(400);
  expect(await binary.json()).toMatchObject({ error: { code: -32700 } });
  const opens = b.relay.sent.filter((entry) => entry.message.t === 'open');
  expect(opens.at(-1)!.message).toMatchObject({ b64: btoa('\xff\xfe\x7b') });

  // The forwarder enforces maxBodyBytes itself: nothing is relayed for a body over it.
  const big = await request(b, 'POST', { sessionId, body: ' '.repeat(5 * 1024 * 1024) });
  expect(big.status).toBe(413);
  expect(b.relay.sent.filter((entry) => entry.message.t === 'open')).toHaveLength(2);
});

test('the relay losing messages (interrupted) fails relayed exchanges in flight on both sides', async () => {
  cluster = startCluster(2);
  const [a, b] = two(cluster);
  const sessionId = await openSession(a);
  const pending = request(b, 'POST', { sessionId, body: callTool(1, 'slow') });
  const stream = new SseReader(await request(b, 'POST', { sessionId, body: callTool(2, 'gated') }));
  expect(await within(stream.nextMessage())).toMatchObject({ params: { data: 'before gate' } });
  await within(a.probes.for(a.probes.started, 'slow').promise);

  b.relay.interrupt();
  const failed = await pending;
  expect(failed.status).toBe(200);
  expect(await failed.json()).toEqual({
    jsonrpc: '2.0',
    id: 1,
    error: { code: -32000, message: 'the server process holding this session stopped' },
  });
  expect(await within(stream.rest(), 5_000, 'stream cut')).toEqual([]);

  // The owner's side: its relayed exchanges see their client gone (nothing more is sent).
  const third = new SseReader(await request(b, 'POST', { sessionId, body: callTool(3, 'gated') }));
  expect(await within(third.nextMessage())).toMatchObject({ params: { data: 'before gate' } });
  a.relay.interrupt();
  const dataSent = a.relay.sent.filter((entry) => entry.message.t === 'data').length;
  a.probes.for(a.probes.gates, 'gated').resolve();
  a.probes.for(a.probes.gates, 'slow').resolve();
  await within(a.probes.for(a.probes.finished, 'gated').promise);
  expect(a.relay.sent.filter((entry) => entry.message.t === 'data').length).toBe(dataSent);
  await third.cancel();
});

test('a relayed client that stops reading is cut by its own process, and the owner is told', async () => {
  cluster = startCluster(2, { maxQueuedBytesPerStream: 4_096 });
  const [a, b] = two(cluster);
  const sessionId = await openSession(a);
  const response = await request(b, 'POST', { sessionId, body: callTool(1, 'flood') });
  expect(response.headers.get('content-type')).toBe('text/event-stream');
  // Nobody reads the body: past 4 KiB queued, B aborts it and sends `gone`.
  await until(() => b.relay.sent.some((entry) => entry.message.t === 'gone'), 'gone after the cut');
  await expect(within(new SseReader(response).rest().then(() => 'ended'))).resolves.toBe('ended');
  a.probes.for(a.probes.gates, 'flood').resolve();
  await within(a.probes.for(a.probes.finished, 'flood').promise);
});

test('relay sends that fail are logged and end their exchange, never an unhandled rejection', async () => {
  const errors: string[] = [];
  cluster = startCluster(2, { logger: { debug() {}, error: (message) => void errors.push(message) } });
  const [a, b] = two(cluster);
  const sessionId = await openSession(a);
  // The forwarder's `open` is refused: 503 naming the relay, nothing ran on the owner.
  b.relay.refusing = true;
  const refused = await request(b, 'POST', { sessionId, body: callTool(1, 'whoami') });
  expect(refused.status).toBe(503);
  expect(await refused.json()).toMatchObject({
    error: { code: -32000, message: expect.stringContaining('test relay: send') },
  });
  expect(a.probes.started.size).toBe(0);
  expect(errors).toContain('relay: sending "open" failed');
  b.relay.refusing = false;

  // The owner's `data` is refused mid-stream: its exchange ends as if the client left.
  const stream = new SseReader(await request(b, 'POST', { sessionId, body: callTool(2, 'gated') }));
  expect(await within(stream.nextMessage())).toMatchObject({ params: { data: 'before gate' } });
  a.relay.refusing = true;
  a.probes.for(a.probes.gates, 'gated').resolve();
  await within(a.probes.for(a.probes.finished, 'gated').promise);
  await until(() => errors.includes('relay: sending "data" failed'), 'data failure logged');
  const refusedData = a.relay.sent.filter((entry) => entry.message.t === 'data').length;
  a.relay.refusing = false;
  // Nothing more is sent for that exchange; B's client is released when the relay reports the loss.
  expect(a.relay.sent.filter((entry) => entry.message.t === 'data').length).toBe(refusedData);
  b.relay.interrupt();
  expect(await within(stream.rest())).toEqual([]);
});

test('only the process an exchange was relayed to can answer it', async () => {
  cluster = startCluster(2);
  const [a, b] = two(cluster);
  const sessionId = await openSession(a);
  const pending = request(b, 'POST', { sessionId, body: callTool(1, 'slow') });
  await within(a.probes.for(a.probes.started, 'slow').promise);
  const [open] = b.relay.sent.filter((entry) => entry.message.t === 'open');
  const intruder = cluster.hub.node('intruder');
  await intruder.listen({ message() {}, broadcast() {} });
  await intruder.send(
    'node-2',
    JSON.stringify({ t: 'head', x: open!.message.x, s: 418, h: [], b: 'forged' }),
  );
  await intruder.close();
  a.probes.for(a.probes.gates, 'slow').resolve();
  const reply = await within(pending);
  expect(reply.status).toBe(200);
  expect(await reply.json()).toMatchObject({
    id: 1,
    result: { content: [{ type: 'text', text: 'slow done' }] },
  });
});

test('an open over the size bound on arrival is answered 413, as the same request sent here directly', async () => {
  cluster = startCluster(2, { maxBodyBytes: 1_024 });
  const [a] = two(cluster);
  const sessionId = await openSession(a);
  const intruder = cluster.hub.node('big-forwarder'); // a process that allows larger bodies
  const received: JsonObject[] = [];
  await intruder.listen({ message: (_from, text) => void received.push(JSON.parse(text)), broadcast() {} });
  const h = [
    ['content-type', 'application/json'],
    ['accept', JSON_AND_SSE],
    ['mcp-session-id', sessionId],
    ['host', '127.0.0.1'],
  ];
  const b = JSON.stringify(callTool(1, 'whoami', { pad: 'x'.repeat(100_000) }));
  await intruder.send('node-1', JSON.stringify({ t: 'open', x: 'big', m: 'POST', h, b }));
  await until(() => received.length === 1, 'the answer to the oversized open');
  const direct = await request(a, 'POST', { sessionId, body: JSON.parse(b) as JsonObject });
  expect(direct.status).toBe(413);
  expect(received[0]).toMatchObject({ t: 'head', x: 'big', s: 413 });
  expect(JSON.parse(received[0]!.b as string)).toEqual(await direct.json());
  await intruder.close();
});
