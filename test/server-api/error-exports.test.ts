/**
 * Issue 13: the error classes a user catches are exported from `keel-mcp/server` and
 * `keel-mcp/client` too, as re-exports of `keel-mcp/core`'s (one class identity, so `instanceof`
 * works whichever entry a project imports from).
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import * as errors from '../../src/core/errors.js';
import * as core from '../../src/core/index.js';
import * as client from '../../src/client/index.js';
import * as server from '../../src/server/index.js';

/** Every class of the one error hierarchy, plus the code table: what a user catches and compares. */
const catchable = Object.entries(errors)
  .filter(
    ([name, value]) =>
      name === 'ErrorCode' || (typeof value === 'function' && value.prototype instanceof Error),
  )
  .map(([name]) => name)
  .sort();

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

describe('error classes from every entry', () => {
  test('the list covers the hierarchy (a new class joins it by itself)', () => {
    expect(catchable).toEqual(
      expect.arrayContaining([
        'AuthorizationError',
        'CancelledByPeerError',
        'ConnectionClosedError',
        'ErrorCode',
        'KeelError',
        'LocalError',
        'McpError',
        'RequestTimeoutError',
        'StoreUnavailableError',
      ]),
    );
  });

  test.each([
    ['server', server],
    ['client', client],
  ])('src %s entry re-exports each with the identity of core', (_entry, module) => {
    const exported = module as unknown as Record<string, unknown>;
    const missing = catchable.filter((name) => exported[name] === undefined);
    expect(missing).toEqual([]);
    for (const name of catchable) expect(exported[name], name).toBe((core as Record<string, unknown>)[name]);
  });

  test('the built package: keel-mcp/server and keel-mcp/client against keel-mcp/core', async () => {
    // As a user imports them (the package's export map, compiled code); `npm test` builds first.
    if (!existsSync(join(ROOT, 'dist', 'src', 'server', 'index.js')))
      throw new Error('dist/ is missing: run `npm run build` first');
    const load = (entry: string) => import(entry) as Promise<Record<string, unknown>>;
    const [builtCore, builtServer, builtClient] = await Promise.all(
      ['keel-mcp/core', 'keel-mcp/server', 'keel-mcp/client'].map(load),
    );
    for (const name of catchable) {
      expect(builtCore![name], `keel-mcp/core ${name}`).toBeDefined();
      expect(builtServer![name], `keel-mcp/server ${name}`).toBe(builtCore![name]);
      expect(builtClient![name], `keel-mcp/client ${name}`).toBe(builtCore![name]);
    }
    const { McpError, ErrorCode } = builtServer as {
      McpError: typeof errors.McpError;
      ErrorCode: typeof errors.ErrorCode;
    };
    expect(new McpError(ErrorCode.InvalidParams, 'x')).toBeInstanceOf(
      builtClient!.McpError as typeof errors.McpError,
    );
  });
});
