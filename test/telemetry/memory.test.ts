/**
 * Issue 26 telemetry over an in-memory pair, both eras: the exact spans, attributes, parent links
 * and metric points of a tool call (client span → server span → a span made in the tool handler,
 * one trace), errors, a cancel, a disconnect, input rounds, notifications and session durations.
 */
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { Client, McpClient } from 'keel-mcp/client';
import { McpError, type JsonObject } from 'keel-mcp/core';
import { createMemoryPair } from 'keel-mcp/memory';
import { McpServer, type ServerSession } from 'keel-mcp/server';
import { clientTelemetry, instrumentClient, serverTelemetry } from 'keel-mcp/telemetry';
import { useProcessGuard, within } from '../helpers/guard.js';
import { expectChildOf, expectError, onlySpan, setUpOtel, spansOf, userTracer } from './support.js';

useProcessGuard();
const otel = setUpOtel();

const cleanups: (() => Promise<unknown>)[] = [];
beforeEach(() => otel.reset());
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await within(cleanup());
});

interface Gate {
  readonly started: Promise<void>;
  release(): void;
}

function gate(): Gate & { start(): void; readonly released: Promise<void> } {
  let start!: () => void;
  let release!: () => void;
  const started = new Promise<void>((resolve) => (start = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  return { started, released, start, release };
}

/** A server with `echo` (makes its own span), `boom` (throws), `hold` (waits for the test), `ask`. */
function weatherServer(hold = gate()): McpServer {
  const server = new McpServer({ name: 'weather', version: '1.0.0' });
  server.use(serverTelemetry({ meterProvider: otel.meterProvider }));
  server.tool('echo', { description: 'echo' }, () => {
    userTracer().startActiveSpan('lookup', (span) => span.end());
    return 'sunny';
  });
  server.tool('boom', { description: 'throws' }, () => {
    throw new Error('the weather service is down');
  });
  server.tool('hold', { description: 'ignores its signal until released' }, async () => {
    hold.start();
    await hold.released;
    return 'late';
  });
  server.tool('ask', { description: 'asks for a name, twice' }, async (_args, ctx) => {
    const schema = { type: 'object', properties: { name: { type: 'string' } } } as const;
    const first = await ctx.elicit({ message: 'Name?', schema }, { inputKey: 'first' });
    const second = await ctx.elicit({ message: 'Again?', schema }, { inputKey: 'second' });
    return `${String(first.action)} ${String(second.action)}`;
  });
  return server;
}

async function connect(
  era: 'legacy' | 'modern',
  hold?: Gate,
): Promise<{ client: McpClient; session: ServerSession }> {
  const [clientSide, serverSide] = createMemoryPair();
  const session = weatherServer(hold as ReturnType<typeof gate>).connect(serverSide);
  const client = instrumentClient(
    new McpClient(
      { name: 'agent', version: '1.0.0' },
      { era, elicitation: { form: () => ({ action: 'accept', content: { name: 'Ada' } }) } },
    ),
    { meterProvider: otel.meterProvider },
  );
  cleanups.push(async () => {
    await client.close();
    await session.closed;
  });
  await within(client.connect(clientSide));
  return { client, session };
}

const VERSION = { legacy: '2025-11-25', modern: '2026-07-28' } as const;

describe.each(['legacy', 'modern'] as const)('issue 26 telemetry (%s era, memory)', (era) => {
  test('a tool call is one trace: agent span → CLIENT span → SERVER span → the handler span', async () => {
    const { client } = await connect(era);
    await userTracer().startActiveSpan('agent', async (agent) => {
      expect(await within(client.callTool('echo', {}))).toMatchObject({ content: [{ text: 'sunny' }] });
      agent.end();
    });
    const spans = otel.spans.getFinishedSpans();
    const agent = onlySpan(spans, 'agent', SpanKind.INTERNAL);
    const clientSpan = onlySpan(spans, 'tools/call echo', SpanKind.CLIENT);
    const serverSpan = onlySpan(spans, 'tools/call echo', SpanKind.SERVER);
    const lookup = onlySpan(spans, 'lookup', SpanKind.INTERNAL);
    expectChildOf(clientSpan, agent);
    expectChildOf(serverSpan, clientSpan);
    expectChildOf(lookup, serverSpan);
    expect(clientSpan.attributes).toEqual({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'echo',
      'gen_ai.operation.name': 'execute_tool',
      'mcp.protocol.version': VERSION[era],
    });
    expect(serverSpan.attributes).toEqual({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'echo',
      'gen_ai.operation.name': 'execute_tool',
      'mcp.protocol.version': VERSION[era],
      'jsonrpc.request.id': expect.stringMatching(/^\d+$/),
    });
    expect(serverSpan.status.code).toBe(SpanStatusCode.UNSET);
    expect(clientSpan.status.code).toBe(SpanStatusCode.UNSET);
    const tool = {
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'echo',
      'gen_ai.operation.name': 'execute_tool',
      'mcp.protocol.version': VERSION[era],
    };
    const serverPoints = await otel.points('mcp.server.operation.duration');
    expect(serverPoints.filter((p) => p.attributes['mcp.method.name'] === 'tools/call')).toEqual([
      { attributes: tool, count: 1, sum: expect.any(Number) },
    ]);
    const clientPoints = await otel.points('mcp.client.operation.duration');
    expect(clientPoints).toEqual([{ attributes: tool, count: 1, sum: expect.any(Number) }]);
  });

  test('a tool that throws: tool_error on both spans (a result with isError, not a JSON-RPC error)', async () => {
    const { client } = await connect(era);
    const result = await within(client.callTool('boom', {}));
    expect(result.isError).toBe(true);
    const spans = otel.spans.getFinishedSpans();
    for (const kind of [SpanKind.CLIENT, SpanKind.SERVER]) {
      const span = onlySpan(spans, 'tools/call boom', kind);
      expectError(span, 'tool_error');
      expect(span.attributes['rpc.response.status_code']).toBeUndefined();
    }
    const points = await otel.points('mcp.server.operation.duration');
    expect(points.find((p) => p.attributes['gen_ai.tool.name'] === 'boom')?.attributes['error.type']).toBe(
      'tool_error',
    );
  });

  test('an unknown tool: the JSON-RPC code is error.type and rpc.response.status_code', async () => {
    const { client } = await connect(era);
    const error = await within(client.callTool('nope', {})).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    const code = String((error as McpError).code);
    const spans = otel.spans.getFinishedSpans();
    for (const kind of [SpanKind.CLIENT, SpanKind.SERVER]) {
      const span = onlySpan(spans, 'tools/call nope', kind);
      expectError(span, code, (error as McpError).message);
      expect(span.attributes['rpc.response.status_code']).toBe(code);
    }
  });

  test('a cancel ends both spans as cancelled when it happens, though the handler ignores it', async () => {
    const hold = gate();
    const { client } = await connect(era, hold);
    const abort = new AbortController();
    const call = client.callTool('hold', {}, { signal: abort.signal }).catch((e: unknown) => e);
    await within(hold.started);
    abort.abort();
    await within(call);
    await within(waitFor(() => spansOf(otel, 'tools/call hold', SpanKind.SERVER).length === 1));
    const spans = otel.spans.getFinishedSpans();
    expectError(onlySpan(spans, 'tools/call hold', SpanKind.CLIENT), 'cancelled');
    // Legacy: the client's notifications/cancelled aborts the handler. 2026-07-28 over a memory
    // pair: the cancel is the same notification (streams end it over HTTP).
    expectError(onlySpan(spans, 'tools/call hold', SpanKind.SERVER), 'cancelled');
    hold.release();
  });

  test('a client timeout: timeout on the client span, cancelled on the server span', async () => {
    const hold = gate();
    const { client } = await connect(era, hold);
    const call = client.callTool('hold', {}, { timeoutMs: 50 }).catch((e: unknown) => e);
    await within(hold.started);
    await within(call);
    await within(waitFor(() => spansOf(otel, 'tools/call hold', SpanKind.SERVER).length === 1));
    const spans = otel.spans.getFinishedSpans();
    expectError(onlySpan(spans, 'tools/call hold', SpanKind.CLIENT), 'timeout');
    expectError(onlySpan(spans, 'tools/call hold', SpanKind.SERVER), 'cancelled');
    hold.release();
  });

  test('a disconnect ends the server span as connection_closed', async () => {
    const hold = gate();
    const { client, session } = await connect(era, hold);
    const call = client.callTool('hold', {}).catch((e: unknown) => e);
    await within(hold.started);
    await within(client.close());
    await within(session.closed);
    await within(call);
    const spans = otel.spans.getFinishedSpans();
    expectError(onlySpan(spans, 'tools/call hold', SpanKind.SERVER), 'connection_closed');
    expectError(onlySpan(spans, 'tools/call hold', SpanKind.CLIENT), 'connection_closed');
    hold.release();
  });
});

test('issue 26 telemetry: 2026-07-28 input rounds are one CLIENT span and one SERVER span per round, all children of it', async () => {
  const { client } = await connect('modern');
  expect(await within(client.callTool('ask', {}))).toMatchObject({ content: [{ text: 'accept accept' }] });
  const spans = otel.spans.getFinishedSpans();
  const clientSpan = onlySpan(spans, 'tools/call ask', SpanKind.CLIENT);
  const rounds = spansOf(otel, 'tools/call ask', SpanKind.SERVER);
  expect(rounds).toHaveLength(3);
  for (const round of rounds) {
    expectChildOf(round, clientSpan);
    expect(round.status.code).toBe(SpanStatusCode.UNSET);
  }
});

test('issue 26 telemetry: a legacy elicitation is one CLIENT and one SERVER span (the nested request gets none)', async () => {
  const { client } = await connect('legacy');
  expect(await within(client.callTool('ask', {}))).toMatchObject({ content: [{ text: 'accept accept' }] });
  const spans = otel.spans.getFinishedSpans();
  expectChildOf(
    onlySpan(spans, 'tools/call ask', SpanKind.SERVER),
    onlySpan(spans, 'tools/call ask', SpanKind.CLIENT),
  );
  expect(spans.filter((span) => span.name.startsWith('elicitation/'))).toEqual([]);
});

test('issue 26 telemetry: legacy initialize and notifications/initialized get SERVER spans; sessions are measured at close', async () => {
  const { client, session } = await connect('legacy');
  const spans = otel.spans.getFinishedSpans();
  expect(onlySpan(spans, 'initialize', SpanKind.SERVER).attributes).toEqual({
    'mcp.method.name': 'initialize',
    'jsonrpc.request.id': expect.any(String),
  });
  expect(onlySpan(spans, 'notifications/initialized', SpanKind.SERVER).attributes).toEqual({
    'mcp.method.name': 'notifications/initialized',
    'mcp.protocol.version': '2025-11-25',
  });
  await within(client.listTools());
  expect(await otel.points('mcp.server.session.duration')).toEqual([]);
  await within(client.close());
  await within(session.closed);
  await within(Promise.resolve());
  expect(await otel.points('mcp.server.session.duration')).toEqual([
    { attributes: { 'mcp.protocol.version': '2025-11-25' }, count: 1, sum: expect.any(Number) },
  ]);
  expect(await otel.points('mcp.client.session.duration')).toEqual([
    { attributes: { 'mcp.protocol.version': '2025-11-25' }, count: 1, sum: expect.any(Number) },
  ]);
});

test("issue 26 telemetry: the client injects traceparent into a copy of _meta, never the caller's params", async () => {
  const [clientSide, serverSide] = createMemoryPair();
  const seen: (JsonObject | undefined)[] = [];
  const server = weatherServer();
  server.use((call, next) => {
    seen.push(call.meta);
    return next();
  });
  const session = server.connect(serverSide);
  const client = new Client({ name: 'low', version: '1' }).use(clientTelemetry());
  cleanups.push(async () => {
    await client.close();
    await session.closed;
  });
  await within(client.connect(clientSide));
  const meta = Object.freeze({ tenant: 'acme' });
  const params = Object.freeze({ name: 'echo', arguments: {}, _meta: meta });
  await within(client.request('tools/call', params));
  expect(params._meta).toBe(meta);
  expect(Object.keys(meta)).toEqual(['tenant']);
  const clientSpan = onlySpan(otel.spans.getFinishedSpans(), 'tools/call echo', SpanKind.CLIENT);
  const { traceId, spanId } = clientSpan.spanContext();
  expect(seen.at(-1)).toMatchObject({ tenant: 'acme', traceparent: `00-${traceId}-${spanId}-01` });
});

/** Resolves once `condition()` holds (polled on the event loop, at most 200 turns). */
async function waitFor(condition: () => boolean): Promise<void> {
  for (let turn = 0; turn < 200; turn++) {
    if (condition()) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error('condition not met in 200 turns');
}
