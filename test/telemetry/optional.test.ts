/**
 * Issue 26 telemetry is optional: no bundle but keel-mcp/telemetry names @opentelemetry, and the
 * compiled stdio fixture without OTEL_* serves a tool call with @opentelemetry/* made unresolvable
 * (a resolve hook that fails every such import, as if the optional peer were not installed).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import { Client } from 'keel-mcp/client';
import { StdioClientTransport } from 'keel-mcp/stdio';
import { useProcessGuard, within } from '../helpers/guard.js';

useProcessGuard();

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PKG = join(ROOT, 'dist', 'pkg');

test('issue 26 telemetry: only the keel-mcp/telemetry bundle imports @opentelemetry', () => {
  const files = [
    ...readdirSync(PKG).map((name) => join(PKG, name)),
    ...readdirSync(join(PKG, 'chunks')).map((name) => join(PKG, 'chunks', name)),
  ].filter((file) => file.endsWith('.js'));
  expect(files.length).toBeGreaterThan(5);
  const naming = files.filter((file) => readFileSync(file, 'utf8').includes('@opentelemetry/'));
  expect(naming.map((file) => file.slice(PKG.length + 1))).toEqual(['telemetry.js']);
});

// Runs in the hooks thread: any @opentelemetry import fails as a missing package would.
const BLOCK = `export async function resolve(specifier, context, next) {
  if (specifier.startsWith('@opentelemetry/')) {
    const error = new Error('blocked by the test: ' + specifier);
    error.code = 'ERR_MODULE_NOT_FOUND';
    throw error;
  }
  return next(specifier, context);
}`;
const REGISTER = `import { register } from 'node:module'; register(${JSON.stringify(
  `data:text/javascript,${encodeURIComponent(BLOCK)}`,
)});`;

test('issue 26 telemetry: without OTEL_* the stdio fixture never loads @opentelemetry (it serves with it unresolvable)', async () => {
  let stderr = '';
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      '--import',
      `data:text/javascript,${encodeURIComponent(REGISTER)}`,
      join(ROOT, 'dist', 'examples', 'fixture-stdio.js'),
    ],
    env: { PATH: process.env.PATH ?? '' },
    stderr: 'pipe',
    onStderr: (text) => (stderr += text),
  });
  const client = new Client({ name: 'optional', version: '1' });
  try {
    await within(client.connect(transport), 10_000, 'connect');
    const result = await within(client.request('tools/call', { name: 'test_simple_text', arguments: {} }));
    expect(result.content).toBeDefined();
  } finally {
    await within(client.close(), 10_000, 'close');
  }
  expect(stderr).not.toContain('blocked by the test');
});

test('issue 26 telemetry: the block works (a module that imports @opentelemetry/api fails under it)', async () => {
  let stderr = '';
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      '--import',
      `data:text/javascript,${encodeURIComponent(REGISTER)}`,
      '--input-type=module',
      '-e',
      "await import('@opentelemetry/api');",
    ],
    env: { PATH: process.env.PATH ?? '' },
    stderr: 'pipe',
    onStderr: (text) => (stderr += text),
  });
  const client = new Client({ name: 'optional', version: '1' });
  const failed = await within(client.connect(transport), 10_000, 'connect').then(
    () => false,
    () => true,
  );
  await within(client.close(), 10_000, 'close');
  expect(failed).toBe(true);
  expect(stderr).toContain('blocked by the test: @opentelemetry/api');
});
