/**
 * docs/migrating.md ("Coming from the official SDK"): every Keel name in its tables exists. Names
 * reached through `server.`, `client.` and `ctx.` are looked up on an McpServer, an McpClient and
 * ToolContext; other names must be exported by a package entry (src of the `exports` map); option
 * and config keys, which have no runtime presence, are compiled in `typed()` below.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { McpClient } from 'keel-mcp/client';
import { StreamableHttpClientTransport, createHttpHandler } from 'keel-mcp/http';
import { McpServer, ToolContext } from 'keel-mcp/server';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const doc = readFileSync(join(ROOT, 'docs', 'migrating.md'), 'utf8');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  exports: Record<string, { types: string; default: string }>;
};

/** The Keel column (the second) of every table row, as its code spans. */
function keelSpans(): string[] {
  const spans: string[] = [];
  for (const line of doc.split('\n')) {
    if (!line.startsWith('|') || /^\|\s*-/.test(line)) continue;
    const cells = line.replace(/\\\|/g, '¦').split('|');
    const keel = cells[2] ?? '';
    if (keel.trim() === 'Keel') continue;
    for (const match of keel.matchAll(/`([^`]+)`/g)) spans.push(match[1]!.replace(/¦/g, '|'));
  }
  return spans;
}

async function entryExports(): Promise<Map<string, Record<string, unknown>>> {
  const entries = new Map<string, Record<string, unknown>>();
  for (const [subpath, target] of Object.entries(pkg.exports)) {
    const source = join(ROOT, target.types.replace(/^\.\/dist\//, '').replace(/\.d\.ts$/, '.ts'));
    entries.set(`keel-mcp${subpath.slice(1)}`, (await import(source)) as Record<string, unknown>);
  }
  return entries;
}

/**
 * `key` on `value` (own or inherited), or on its `prototype` for a class; accessors are not run
 * (a getter on a prototype would throw), so a getter's value is undefined.
 */
function member(value: unknown, key: string): { ok: boolean; value?: unknown } {
  const holders = [value, (value as { prototype?: unknown } | undefined)?.prototype];
  for (let holder of holders) {
    while (holder !== null && (typeof holder === 'object' || typeof holder === 'function')) {
      const descriptor = Object.getOwnPropertyDescriptor(holder, key);
      if (descriptor) return { ok: true, value: descriptor.value };
      holder = Object.getPrototypeOf(holder);
    }
  }
  return { ok: false };
}

describe('docs/migrating.md names what exists', () => {
  test('every Keel name of the tables resolves', async () => {
    const spans = keelSpans();
    expect(spans.length).toBeGreaterThan(40);
    const entries = await entryExports();
    const exported = new Map<string, unknown>();
    for (const module of entries.values())
      for (const [name, value] of Object.entries(module)) exported.set(name, value);
    const server = new McpServer({ name: 'doc', version: '1' });
    const client = new McpClient({ name: 'doc', version: '1' });
    const roots: Record<string, unknown> = { server, client, ctx: ToolContext.prototype };
    const unknown: string[] = [];
    for (const span of spans) {
      if (/^keel-mcp\//.test(span)) {
        if (!entries.has(span)) unknown.push(span);
        continue;
      }
      const code = span.replace(/'[^']*'/g, "''");
      for (const match of code.matchAll(/(?<![\w.])([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)(\s*\()?/g)) {
        const [first, ...rest] = match[1]!.split('.');
        let value: unknown;
        if (first! in roots) value = roots[first!];
        else if (/^[A-Z]/.test(first!) || match[2] !== undefined) {
          if (!exported.has(first!)) {
            if (!(first! in globalThis)) unknown.push(`${span}: ${first!}`);
            continue;
          }
          value = exported.get(first!);
        } else continue; // a parameter or option name: compiled in typed()
        for (const key of rest) {
          const found = member(value, key);
          if (!found.ok) {
            unknown.push(`${span}: ${match[1]!}`);
            break;
          }
          value = found.value;
        }
      }
    }
    expect(unknown).toEqual([]);
  });

  test('the Keel column does not carry the official spellings it replaces', () => {
    const keel = keelSpans().join(' ');
    for (const official of [
      'registerTool',
      'inputSchema',
      'argsSchema',
      'StreamableHTTPClientTransport',
      'sendResourceListChanged',
    ])
      expect(keel).not.toContain(official);
    for (const official of [
      'registerTool',
      'inputSchema',
      'argsSchema',
      '{ timeout }',
      'StreamableHTTPClientTransport',
      'sendResourceListChanged',
      'server.connect',
      'server.server',
    ])
      expect(doc).toContain(official);
  });
});

/** The option and config keys the tables name, compiled (never run). */
export function typed(server: McpServer, client: McpClient): void {
  server.tool(
    't',
    { description: 'd', input: z.object({ a: z.string() }), output: z.object({ b: z.string() }) },
    () => ({ b: 'x' }),
  );
  server.prompt(
    'p',
    { description: 'd', args: z.object({ who: z.string() }), complete: { who: () => [] } },
    () => 'x',
  );
  server.resourceTemplate('n', 'x://{id}', {}, () => 'x', { list: () => [], complete: { id: () => [] } });
  void client.callTool(
    't',
    {},
    {
      timeoutMs: 1,
      maxTotalTimeoutMs: 2,
      resetTimeoutOnProgress: false,
      onprogress: () => undefined,
      signal: AbortSignal.abort(),
    },
  );
  client.onElicitation({ form: () => ({ action: 'decline' }), url: () => ({ action: 'decline' }) });
  void createHttpHandler(server, { allowedHosts: [], allowedOrigins: [], dnsRebindingProtection: true });
  void McpClient.connect(new StreamableHttpClientTransport('http://127.0.0.1/mcp'), {
    info: { name: 'c', version: '1' },
  });
}
