/**
 * Issue 26 telemetry end to end: the compiled fixture servers (dist/examples) with
 * OTEL_EXPORTER_OTLP_ENDPOINT pointing at a local OTLP receiver (node:http on 127.0.0.1) export
 * the SERVER span of a tool call whose request carried a `traceparent` in `_meta`: same trace id,
 * the client's span id as parent. stdio with `http/json` (the body parsed as OTLP JSON), HTTP with
 * `http/protobuf` (the ids found as raw bytes in the protobuf body: trace_id is 16 bytes,
 * parent_span_id 8 bytes, each preceded by its field tag). Flushed by the fixture's own shutdown
 * (stdin EOF, SIGTERM).
 */
import { randomBytes } from 'node:crypto';
import { afterEach, expect, test } from 'vitest';
import { StreamableHttpClientTransport } from 'keel-mcp/http';
import { StdioClientTransport } from 'keel-mcp/stdio';
import { useProcessGuard, within } from '../helpers/guard.js';
import { fixture, jsonSpans, otlpReceiver, spawnFixtureHttp, tracingClient } from './otlp-processes.js';

useProcessGuard();

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await within(cleanup(), 10_000);
});

test('issue 26 telemetry: the stdio fixture exports its SERVER span over OTLP http/json, child of the _meta traceparent', async () => {
  const receiver = await otlpReceiver();
  cleanups.push(() => receiver.close());
  const traceId = randomBytes(16).toString('hex');
  const parentId = randomBytes(8).toString('hex');
  const client = tracingClient(traceId, parentId);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [fixture('fixture-stdio.js')],
    env: {
      PATH: process.env.PATH ?? '',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_SERVICE_NAME: 'e2e-stdio',
      OTEL_METRICS_EXPORTER: 'none',
    },
    stderr: 'pipe',
  });
  await within(client.connect(transport), 10_000, 'connect');
  await within(client.request('tools/call', { name: 'test_simple_text', arguments: {} }));
  const exported = receiver.received('/v1/traces', (body) =>
    jsonSpans(body).some((span) => span.traceId === traceId),
  );
  await within(client.close(), 10_000, 'close'); // stdin EOF: the fixture flushes, then exits
  const spans = jsonSpans(await within(exported, 10_000, 'OTLP export'));
  const span = spans.find((s) => s.traceId === traceId && s.name === 'tools/call test_simple_text');
  expect(span).toBeDefined();
  expect(span!.kind).toBe(2); // SPAN_KIND_SERVER
  expect(span!.parentSpanId).toBe(parentId);
  const attributes = Object.fromEntries(span!.attributes.map((a) => [a.key, a.value.stringValue]));
  expect(attributes).toMatchObject({
    'mcp.method.name': 'tools/call',
    'gen_ai.tool.name': 'test_simple_text',
    'network.transport': 'pipe',
  });
  const body = JSON.parse((await exported).toString('utf8')) as {
    resourceSpans: { resource: { attributes: { key: string; value: { stringValue?: string } }[] } }[];
  };
  expect(body.resourceSpans[0]!.resource.attributes).toContainEqual({
    key: 'service.name',
    value: { stringValue: 'e2e-stdio' },
  });
});

test('issue 26 telemetry: the HTTP fixture exports its SERVER span over OTLP http/protobuf, child of the _meta traceparent', async () => {
  const receiver = await otlpReceiver();
  cleanups.push(() => receiver.close());
  const traceId = randomBytes(16);
  const parentId = randomBytes(8);
  const fixtureHttp = await spawnFixtureHttp({
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
    OTEL_SERVICE_NAME: 'e2e-http',
  });
  cleanups.push(() => fixtureHttp.kill());
  const url = fixtureHttp.url;
  const client = tracingClient(traceId.toString('hex'), parentId.toString('hex'));
  await within(client.connect(new StreamableHttpClientTransport(new URL(url))), 10_000, 'connect');
  await within(client.request('tools/call', { name: 'test_simple_text', arguments: {} }));
  await within(client.close());
  // Span fields 1 (trace_id) and 4 (parent_span_id) are length-delimited: tag 0x0a len 16, tag 0x22 len 8.
  const traceField = Buffer.concat([Buffer.from([0x0a, 16]), traceId]);
  const parentField = Buffer.concat([Buffer.from([0x22, 8]), parentId]);
  const exported = receiver.received('/v1/traces', (body) => body.includes(traceField));
  const exitCode = fixtureHttp.stop(); // SIGTERM: the fixture closes its sessions and flushes the batch
  const body = await within(exported, 10_000, 'OTLP export');
  expect(body.includes(parentField)).toBe(true);
  expect(body.includes(Buffer.from('tools/call test_simple_text'))).toBe(true);
  expect(body.includes(Buffer.from('e2e-http'))).toBe(true);
  expect(await exitCode).toBe(0);
});
