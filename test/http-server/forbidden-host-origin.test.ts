/**
 * Issue 13: a 403 for a rejected `Host` or `Origin` names the rejected value (sanitised: visible
 * ASCII only, bounded length) and which list to add it to. The body is a JSON-RPC error response
 * with no `id`, as the transport spec says (2025-11-25 and 2026-07-28: "a JSON-RPC error response
 * that has no `id`"; the schema's `id` is an optional RequestId, which excludes null).
 */
import { afterEach, describe, expect, test } from 'vitest';
import { createHttpHandler, type HttpHandler, HostOriginPolicy } from 'keel-mcp/http';
import { describeRejection, MAX_REPORTED_HEADER_CHARS } from '../../src/hosts/http/host-origin-policy.js';
import { useProcessGuard } from '../helpers/guard.js';
import { createTestServer, Probes } from './support/harness.js';

useProcessGuard();
let handler: HttpHandler | undefined;
afterEach(async () => {
  await handler?.close();
  handler = undefined;
});

const ping = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });

async function post(
  headers: Record<string, string>,
): Promise<{ status: number; body: Record<string, unknown> }> {
  handler ??= createHttpHandler(createTestServer(new Probes()), { keepAliveMs: 0 });
  const response = await handler(
    new Request('http://127.0.0.1/mcp', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
      body: ping,
    }),
  );
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('403 names what was rejected', () => {
  test('a foreign Origin: the value and allowedOrigins, no id', async () => {
    const { status, body } = await post({ origin: 'http://evil.example.com' });
    expect(status).toBe(403);
    expect(body).toEqual({
      jsonrpc: '2.0',
      error: {
        code: -32600,
        message: 'Forbidden: Origin "http://evil.example.com" is not allowed (see the allowedOrigins option)',
      },
    });
  });

  test('a foreign Host: the value and allowedHosts', async () => {
    const { status, body } = await post({ host: 'evil.example.com:8080' });
    expect(status).toBe(403);
    expect(body).toEqual({
      jsonrpc: '2.0',
      error: {
        code: -32600,
        message: 'Forbidden: Host "evil.example.com:8080" is not allowed (see the allowedHosts option)',
      },
    });
  });

  test('a value with bytes outside visible ASCII and over the bound is sanitised and cut', async () => {
    const long = `http://\u00e9vil\t${'a'.repeat(500)}.example`;
    const { status, body } = await post({ origin: long });
    expect(status).toBe(403);
    const message = (body.error as { message: string }).message;
    const quoted = /Origin "(.*)" is not allowed/.exec(message)?.[1];
    expect(quoted).toBe(`http://?vil?${'a'.repeat(MAX_REPORTED_HEADER_CHARS - 12)}...`);
    expect(message).toMatch(/^[\x20-\x7e]+$/);
  });
});

describe('describeRejection', () => {
  const policy = new HostOriginPolicy(['localhost'], ['localhost']);

  test('allowed: undefined; Host is judged before Origin; a missing Host is named as such', () => {
    expect(describeRejection(policy, 'localhost:1', 'http://localhost:2')).toBeUndefined();
    expect(describeRejection(policy, 'localhost:1', null)).toBeUndefined();
    expect(describeRejection(policy, 'evil', 'http://evil')).toMatch(/^Forbidden: Host "evil"/);
    expect(describeRejection(policy, null, null)).toBe('Forbidden: the request has no Host header');
  });

  test('quotes and backslashes stay readable (the JSON body escapes them, the value is not altered)', () => {
    expect(describeRejection(policy, 'localhost', 'http://a"b\\c')).toBe(
      'Forbidden: Origin "http://a"b\\c" is not allowed (see the allowedOrigins option)',
    );
  });
});
