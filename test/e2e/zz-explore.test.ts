import { test } from 'vitest';
import { McpClient } from '../../src/client/index.js';
import { McpServer } from '../../src/server/mcp-server.js';
import { StreamableHttpClientTransport } from '../../src/transports/http/client/index.js';
import { registerProbeTools } from './fixtures/probe-tools.mjs';
import { hostHttp } from './support/http-server.js';
import { ProbeLog } from './support/probes.js';

function describeError(e: any): string {
  if (!e) return String(e);
  let s = `${e.name}(${e.code ?? ''}): ${e.message}`;
  if (e.cause) s += ` <- ${describeError(e.cause)}`;
  return s;
}

async function setup(tool: string, retryMs = 50) {
  const probes = new ProbeLog();
  const server = new McpServer({ name: 'p', version: '1' });
  registerProbeTools(server, probes.record);
  const ends: string[] = [];
  const host = await hostHttp(server, 'stateful', { retryMs, onSessionEnd: (_id, r) => ends.push(r) });
  let asked!: () => void;
  const askedP = new Promise<void>((r) => (asked = r));
  const client = await McpClient.connect(new StreamableHttpClientTransport(host.url), {
    elicitation: { form: (_p, ctx) => { asked(); return new Promise((_, rej) => ctx.signal.addEventListener('abort', () => rej(ctx.signal.reason))); } },
  });
  const t0 = Date.now();
  const call = client.callTool(tool, {}).then((v) => `resolved ${JSON.stringify(v)}`, (e) => `rejected ${describeError(e)} after ${Date.now() - t0}`);
  await probes.nth('started');
  if (tool === 'e2e_ask') await askedP;
  return { probes, host, client, call, ends };
}

for (const tool of ['e2e_block', 'e2e_ask']) {
  test(`cut ${tool}`, async () => {
    const { probes, host, client, call, ends } = await setup(tool);
    host.serving.server.close();
    host.serving.server.closeAllConnections();
    console.log('CUT', tool, await call);
    console.log('events', probes.events, ends);
    await host.serving.handler.close({ deadlineMs: 1000 });
    console.log('events', probes.events, ends);
    await client.close();
    await host.close();
  });
  test(`shutdown ${tool}`, async () => {
    const { probes, host, client, call, ends } = await setup(tool);
    const closing = host.close();
    console.log('SHUTDOWN', tool, await call);
    await closing;
    console.log('events', probes.events, ends);
    await client.close();
  });
  test(`delete ${tool}`, async () => {
    const { probes, host, client, call, ends } = await setup(tool);
    const closing = client.close();
    console.log('DELETE', tool, await call);
    await closing;
    console.log('DEVENTS', JSON.stringify(probes.events), ends, host.serving.handler.sessionCount);
    console.log('DWAIT', await probes.nth('aborted', 1, 2000).then(JSON.stringify, String));
    await host.close();
  });
}
