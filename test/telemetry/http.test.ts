/**
 * Issue 26 telemetry over Streamable HTTP in one process (serveHttp on 127.0.0.1), both eras:
 * the CLIENT and SERVER spans of a tool call form one trace, the server span says `tcp`/`http`,
 * and a legacy session's spans carry its `mcp.session.id` on both sides.
 */
import { SpanKind } from '@opentelemetry/api';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { McpClient } from 'keel-mcp/client';
import { StreamableHttpClientTransport } from 'keel-mcp/http';
import { serveHttp } from 'keel-mcp/node';
import { McpServer } from 'keel-mcp/server';
import { instrumentClient, serverTelemetry } from 'keel-mcp/telemetry';
import { useProcessGuard, within } from '../helpers/guard.js';
import { expectChildOf, onlySpan, setUpOtel, userTracer } from './support.js';

useProcessGuard();
const otel = setUpOtel();

const cleanups: (() => Promise<unknown>)[] = [];
beforeEach(() => otel.reset());
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await within(cleanup());
});

describe.each(['legacy', 'modern'] as const)('issue 26 telemetry over HTTP (%s era)', (era) => {
  test('client span → server span → handler span, with tcp/http and the session id', async () => {
    const server = new McpServer({ name: 'weather', version: '1.0.0' });
    server.use(serverTelemetry({ meterProvider: otel.meterProvider }));
    server.tool('echo', { description: 'echo' }, () => {
      userTracer().startActiveSpan('lookup', (span) => span.end());
      return 'sunny';
    });
    const serving = await serveHttp(server, { port: 0, keepAliveTimeout: 0 });
    cleanups.push(() => serving.close());
    const client = instrumentClient(new McpClient({ name: 'agent', version: '1.0.0' }, { era }), {
      meterProvider: otel.meterProvider,
      networkTransport: 'tcp',
    });
    cleanups.push(() => client.close());
    await within(client.connect(new StreamableHttpClientTransport(new URL(serving.url))));
    await within(client.callTool('echo', {}));
    const spans = otel.spans.getFinishedSpans();
    const clientSpan = onlySpan(spans, 'tools/call echo', SpanKind.CLIENT);
    const serverSpan = onlySpan(spans, 'tools/call echo', SpanKind.SERVER);
    expectChildOf(serverSpan, clientSpan);
    expectChildOf(onlySpan(spans, 'lookup', SpanKind.INTERNAL), serverSpan);
    expect(serverSpan.attributes).toMatchObject({
      'network.transport': 'tcp',
      'network.protocol.name': 'http',
      'mcp.protocol.version': era === 'legacy' ? '2025-11-25' : '2026-07-28',
    });
    expect(clientSpan.attributes['network.transport']).toBe('tcp');
    const sessionId = serverSpan.attributes['mcp.session.id'];
    if (era === 'legacy') {
      expect(sessionId).toEqual(expect.any(String));
      expect(clientSpan.attributes['mcp.session.id']).toBe(sessionId);
    } else {
      expect(sessionId).toBeUndefined(); // 2026-07-28 has no session
    }
  });
});
