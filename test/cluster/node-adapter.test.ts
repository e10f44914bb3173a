/**
 * Issue 12 over real sockets: two `serveHttp` processes-in-a-process on 127.0.0.1 share a relay
 * and a session store; Keel's client alternates between their URLs. The Node adapter's exchange
 * (no web Request objects) is what gets relayed, and what serves relayed exchanges.
 */
import { afterEach, expect, test } from 'vitest';
import { serveHttp, type HttpServing } from 'keel-mcp/node';
import { McpClient } from 'keel-mcp/client';
import type { JsonObject } from 'keel-mcp/core';
import { Server } from 'keel-mcp/server';
import { StreamableHttpClientTransport, InMemorySessionStore, MemoryRelayHub } from 'keel-mcp/http';
import { useProcessGuard, within } from '../helpers/guard.js';

useProcessGuard();

let servings: HttpServing[] = [];
afterEach(async () => {
  await Promise.all(servings.map((serving) => serving.close({ deadlineMs: 2_000 })));
  servings = [];
});

function nodeServer(name: string): Server {
  const server = new Server({ name, version: '1.0.0' }, { capabilities: { tools: {}, logging: {} } });
  server.setRequestHandler('tools/call', async (params, ctx) => {
    if (params.name === 'ask') {
      await ctx.notify('notifications/message', { level: 'info', data: `asking from ${name}` });
      const answer = await ctx.request('elicitation/create', {
        message: 'Your answer?',
        requestedSchema: { type: 'object', properties: { answer: { type: 'string' } } },
      });
      return {
        content: [{ type: 'text', text: `${name} got ${String((answer.content as JsonObject).answer)}` }],
      };
    }
    return { content: [{ type: 'text', text: `${name} ${ctx.sessionId}` }] };
  });
  return server;
}

test('two Node servers behind a round-robin client serve one session through its owner', async () => {
  const hub = new MemoryRelayHub();
  const sessions = new InMemorySessionStore();
  for (const name of ['node-1', 'node-2']) {
    servings.push(
      await serveHttp(nodeServer(name), {
        port: 0,
        keepAliveMs: 0,
        backplane: { relay: hub.node(name), sessions },
      }),
    );
  }
  const served: number[] = [];
  let k = 0;
  const balancer: typeof globalThis.fetch = (_input, init) => {
    const index = k++ % 2;
    served.push(index);
    return fetch(servings[index]!.url, init);
  };
  const logs: unknown[] = [];
  const transport = new StreamableHttpClientTransport(servings[0]!.url, {
    fetch: balancer,
    openGetStream: false,
  });
  const client = await within(
    McpClient.connect(transport, {
      era: 'legacy',
      elicitation: { form: () => ({ action: 'accept', content: { answer: 'over tcp' } }) },
    }),
  );
  client.on('log', (message) => void logs.push(message.data));
  const texts: string[] = [];
  for (let i = 0; i < 2; i++) {
    texts.push(((await within(client.callTool('who'))).content as { text: string }[])[0]!.text);
  }
  const sessionId = transport.sessionId;
  expect(texts).toEqual([`node-1 ${sessionId}`, `node-1 ${sessionId}`]);
  const asked = await within(client.callTool('ask'));
  expect(asked.content).toEqual([{ type: 'text', text: 'node-1 got over tcp' }]);
  expect(logs).toEqual(['asking from node-1']);
  expect(new Set(served)).toEqual(new Set([0, 1]));
  await client.close();
  expect(await sessions.get(sessionId!)).toBeUndefined();
  expect(servings.map((serving) => serving.handler.sessionCount)).toEqual([0, 0]);
});

test('stateless mode with a backplane: requests are served locally; the relay is opened and closed with the handler', async () => {
  const hub = new MemoryRelayHub();
  const sessions = new InMemorySessionStore();
  const serving = await serveHttp(nodeServer('solo'), {
    port: 0,
    sessions: false,
    backplane: { relay: hub.node('solo'), sessions },
  });
  servings.push(serving);
  const response = await fetch(serving.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': 'ignored-in-stateless-mode',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'who', arguments: {} },
    }),
  });
  expect(response.status).toBe(200);
  expect(await response.json()).toMatchObject({ id: 1, result: { content: [{ type: 'text' }] } });
  expect(hub.nodes.has('solo')).toBe(true);
  await serving.close();
  expect(hub.nodes.size).toBe(0);
});
