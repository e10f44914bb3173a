/**
 * Issue 26 telemetry across processes of a Redis deployment: two compiled fixture HTTP servers
 * share a throwaway redis-server (REDIS_URL) behind a round-robin proxy with no sticky sessions,
 * each exporting spans over OTLP http/json to a local receiver under its own service name. A
 * legacy session lives on one process; requests that reach the other are relayed to it with
 * their `_meta`, so every tools/call SERVER span comes from the owner and keeps the parent its
 * request carried. Needs `npm run build` and redis-server.
 */
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, test } from 'vitest';
import { Client } from 'keel-mcp/client';
import type { JsonObject } from 'keel-mcp/core';
import { StreamableHttpClientTransport } from 'keel-mcp/http';
import { useProcessGuard, within } from '../helpers/guard.js';
import { redisAvailable, startRedis } from '../helpers/redis.js';
import { startRoundRobinProxy } from '../helpers/round-robin-proxy.js';
import { otlpReceiver, spawnFixtureHttp, type OtlpJsonSpan } from './otlp-processes.js';

useProcessGuard();

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await within(cleanup(), 10_000);
});

const CALLS = 4;

describe.skipIf(!redisAvailable())('issue 26 telemetry over Redis', () => {
  test('a request relayed to the session owner keeps its parent (one trace across processes)', async () => {
    const redis = await startRedis();
    cleanups.push(() => redis.stop());
    const receiver = await otlpReceiver();
    cleanups.push(() => receiver.close());
    const nodes = [];
    for (const name of ['node-a', 'node-b']) {
      const node = await spawnFixtureHttp({
        REDIS_URL: redis.url,
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_METRICS_EXPORTER: 'none',
        OTEL_SERVICE_NAME: name,
      });
      cleanups.push(() => node.kill());
      nodes.push(node);
    }
    const proxy = await startRoundRobinProxy(nodes.map((node) => Number(new URL(node.url).port)));
    cleanups.push(() => proxy.close());

    const traceId = randomBytes(16).toString('hex');
    const parents: string[] = [];
    const client = new Client({ name: 'relay', version: '1' }, { era: 'legacy' }).use((call, next) => {
      if (call.method !== 'tools/call') return next();
      const parent = randomBytes(8).toString('hex');
      parents.push(parent);
      return next({
        ...call.params,
        _meta: {
          ...(call.params?._meta as JsonObject | undefined),
          traceparent: `00-${traceId}-${parent}-01`,
        },
      });
    });
    await within(client.connect(new StreamableHttpClientTransport(new URL(proxy.url('/mcp')))), 10_000);
    for (let i = 0; i < CALLS; i++) {
      await within(client.request('tools/call', { name: 'test_simple_text', arguments: {} }));
    }
    await within(client.close());
    proxy.closeIdle();
    const upstreams = new Set(
      proxy.log.filter((entry) => entry.rpcMethods.includes('tools/call')).map((entry) => entry.upstream),
    );
    expect([...upstreams].sort()).toEqual([0, 1]); // some calls reached the process without the session

    await within(Promise.all(nodes.map((node) => node.stop())), 15_000, 'fixtures stop'); // flushes both
    const spans: { service: string; span: OtlpJsonSpan }[] = [];
    for (const body of receiver.bodies('/v1/traces')) {
      const parsed = JSON.parse(body.toString('utf8')) as {
        resourceSpans: {
          resource: { attributes: { key: string; value: { stringValue?: string } }[] };
          scopeSpans: { spans: OtlpJsonSpan[] }[];
        }[];
      };
      for (const resource of parsed.resourceSpans) {
        const service = resource.resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue;
        for (const scope of resource.scopeSpans) {
          for (const span of scope.spans)
            if (span.traceId === traceId) spans.push({ service: service!, span });
        }
      }
    }
    const calls = spans.filter(({ span }) => span.name === 'tools/call test_simple_text');
    expect(calls.map(({ span }) => span.parentSpanId).sort()).toEqual([...parents].sort());
    expect(new Set(calls.map(({ service }) => service)).size).toBe(1);
    expect(calls.every(({ span }) => span.kind === 2)).toBe(true);
  });
});
