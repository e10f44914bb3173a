/**
 * Issue 9 item 16: -32021 (missing client capability) is a 2026-07-28 code; a legacy-era session
 * never sees it. Asking an undeclared capability fails locally (MissingClientCapabilityError,
 * nothing sent); escaping a tool it is an `isError` result, escaping any other handler `-32603`.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { ErrorCode, LocalError, McpError, MissingClientCapabilityError } from 'keel-mcp/core';
import { McpServer } from 'keel-mcp/server';
import { useProcessGuard } from '../helpers/guard.js';
import { connect, type Connected } from './harness.js';

useProcessGuard();
let open: Connected | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

/** Every JSON-RPC error code the server wrote. */
function wireErrorCodes(c: Connected): number[] {
  return c.routes.flatMap((r) => ('error' in r.message ? [r.message.error.code] : []));
}

describe('a missing client capability in the legacy era', () => {
  test('a tool that lets it escape answers isError, a resource reader -32603; never -32021', async () => {
    const s = new McpServer({ name: 's', version: '1' }, { onerror: undefined });
    s.tool('ask', { description: 'Asks the user' }, async (_a, ctx) => {
      await ctx.elicit({ message: 'Units?', schema: { type: 'object', properties: {} } });
      return 'asked';
    });
    s.resource('roots', 'test://roots', {}, async (_uri, ctx) => JSON.stringify(await ctx.listRoots()));
    open = await connect(s, { capabilities: {} });

    const result = await open.client.request('tools/call', { name: 'ask' });
    expect(result).toEqual({
      content: [{ type: 'text', text: 'The client did not declare the "elicitation.form" capability' }],
      isError: true,
    });
    await expect(open.client.request('resources/read', { uri: 'test://roots' })).rejects.toMatchObject({
      code: ErrorCode.InternalError,
      message: 'The client did not declare the "roots" capability',
    });
    expect(wireErrorCodes(open)).toEqual([ErrorCode.InternalError]);
    expect(wireErrorCodes(open)).not.toContain(ErrorCode.MissingRequiredClientCapability);
    // Nothing was asked of the client.
    const requests = open.routes.filter((r) => 'method' in r.message && 'id' in r.message);
    expect(requests).toEqual([]);
  });

  test('the error is local and typed; toMcpError() is the 2026-07-28 form', async () => {
    const s = new McpServer({ name: 's', version: '1' });
    let caught: unknown;
    s.tool('sample', { description: 'Samples' }, async (_a, ctx) => {
      try {
        await ctx.createMessage({ messages: [], maxTokens: 1, tools: [] });
      } catch (error) {
        caught = error;
      }
      return 'done';
    });
    open = await connect(s, { capabilities: { sampling: {} } });
    await open.client.request('tools/call', { name: 'sample' });
    expect(caught).toBeInstanceOf(MissingClientCapabilityError);
    expect(caught).toBeInstanceOf(LocalError);
    expect(caught).not.toBeInstanceOf(McpError);
    const error = caught as MissingClientCapabilityError;
    expect(error.capability).toBe('sampling.tools');
    expect(error.requiredCapabilities).toEqual({ sampling: { tools: {} } });
    expect(error.toMcpError().toJSON()).toEqual({
      code: -32021,
      message: 'The client did not declare the "sampling.tools" capability',
      data: { requiredCapabilities: { sampling: { tools: {} } } },
    });
  });

  test('createMessage and listRoots never throw: a missing capability rejects their promise', async () => {
    // They are plain functions returning the channel's promise (no `async` wrapper): a failed
    // check must still come as a rejection, as it did from an async method.
    const s = new McpServer({ name: 's', version: '1' });
    let outcome: string[] = [];
    s.tool('probe', { description: 'Probes' }, (_a, ctx) => {
      let calls: Promise<unknown>[];
      try {
        calls = [ctx.createMessage({ messages: [], maxTokens: 1 }), ctx.listRoots()];
      } catch {
        outcome = ['threw'];
        return 'threw';
      }
      return Promise.allSettled(calls).then((settled) => {
        outcome = settled.map((r) => (r.status === 'rejected' ? (r.reason as Error).constructor.name : 'ok'));
        return 'done';
      });
    });
    open = await connect(s, { capabilities: {} });
    await open.client.request('tools/call', { name: 'probe' });
    expect(outcome).toEqual(['MissingClientCapabilityError', 'MissingClientCapabilityError']);
  });
});
