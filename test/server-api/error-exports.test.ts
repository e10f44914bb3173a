/**
 * Where the error classes come from (docs/entry-points.md): the hierarchy from `keel-mcp/core`
 * and the root `keel-mcp`; of it, `keel-mcp/server` and `keel-mcp/client` export only `McpError`
 * and `ErrorCode` (the error a handler throws, the answer a call rejects with), as the same objects
 * (one class identity, so `instanceof` works whichever entry a project imports from).
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import * as errors from '../../src/core/errors.js';
import * as core from 'keel-mcp/core';
import * as root from 'keel-mcp';
import * as client from 'keel-mcp/client';
import * as server from 'keel-mcp/server';

/** Every class of the one error hierarchy, plus the code table: what a user catches and compares. */
const catchable = Object.entries(errors)
  .filter(
    ([name, value]) =>
      name === 'ErrorCode' || (typeof value === 'function' && value.prototype instanceof Error),
  )
  .map(([name]) => name)
  .sort();
/** What server and client export of it. */
const onBothSides = ['ErrorCode', 'McpError'];

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const named = (module: object) => module as Record<string, unknown>;

describe('error classes: one home', () => {
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

  test('keel-mcp/core and keel-mcp export each, as the same object', () => {
    for (const name of catchable) {
      expect(named(core)[name], name).toBeDefined();
      expect(named(root)[name], name).toBe(named(core)[name]);
    }
  });

  test.each([
    ['server', server],
    ['client', client],
  ])('the %s entry exports McpError and ErrorCode of it, with the identity of core', (entry, module) => {
    const extra = entry === 'client' ? ['AuthorizationError'] : []; // client OAuth's own failure
    const exported = catchable.filter((name) => named(module)[name] !== undefined);
    expect(exported).toEqual([...onBothSides, ...extra].sort());
    for (const name of exported) expect(named(module)[name], name).toBe(named(core)[name]);
  });

  test('the built package: keel-mcp/server, keel-mcp/client and keel-mcp against keel-mcp/core', async () => {
    // As a user imports them (the package's export map, compiled code); `npm test` builds first.
    if (!existsSync(join(ROOT, 'dist', 'src', 'server', 'index.js')))
      throw new Error('dist/ is missing: run `npm run build` first');
    const load = (entry: string) => import(entry) as Promise<Record<string, unknown>>;
    const [builtCore, builtServer, builtClient, builtRoot] = await Promise.all(
      ['keel-mcp/core', 'keel-mcp/server', 'keel-mcp/client', 'keel-mcp'].map(load),
    );
    for (const name of catchable) expect(builtRoot![name], `keel-mcp ${name}`).toBe(builtCore![name]);
    for (const name of onBothSides) {
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
