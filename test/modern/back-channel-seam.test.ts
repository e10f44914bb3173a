/**
 * Issue 10 (foundation B): the back-channel is chosen per request. A modern request's handler gets
 * the McpServer's modern channel (here a stand-in that decides an `input_required` result), a
 * legacy request's handler never does; an interim result carries no caching hints.
 */
import { afterEach, expect, test } from 'vitest';
import type { JsonObject } from 'keel-mcp/core';
import { McpServer } from 'keel-mcp/server';
import type { ModernChannelFactory } from '../../src/server/modern/back-channel.js';
import type { RoundOutcome } from '../../src/server/modern/input-rounds.js';
import { useProcessGuard } from '../helpers/guard.js';
import { connect, type Connected } from '../server-api/harness.js';
import { connectRaw, type Raw } from './harness.js';

useProcessGuard();
const opened: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const c of opened.splice(0)) await c.close();
});

const INPUT_REQUIRED = {
  resultType: 'input_required',
  inputRequests: { roots: { method: 'roots/list', params: {} } },
  // A careless channel: the pipeline must strip hints from an interim result.
  ttlMs: 5,
};

/** A stand-in modern channel: the first call decides an input_required answer at once. */
function standIn(calls: string[]): ModernChannelFactory {
  return async () => {
    const controller = new AbortController();
    let decide: ((outcome: RoundOutcome<never>) => void) | undefined;
    return {
      signal: controller.signal,
      request(method: string): Promise<JsonObject> {
        calls.push(method);
        controller.abort();
        decide?.({ type: 'input_required', result: { ...INPUT_REQUIRED } as never });
        return Promise.reject(new Error('input required'));
      },
      run<T>(handler: () => T | Promise<T>): Promise<RoundOutcome<T>> {
        return new Promise<RoundOutcome<T>>((resolve, reject) => {
          decide = resolve;
          Promise.resolve(handler()).then((value) => {
            if (!controller.signal.aborted) resolve({ type: 'complete', value });
          }, reject);
        });
      },
    };
  };
}

test('a modern request uses the modern channel; its decision wins over the handler; no caching hints', async () => {
  const calls: string[] = [];
  const s = new McpServer({ name: 's', version: '1' }, { onerror: undefined });
  s.modernChannel = standIn(calls);
  s.resource('roots', 'test://roots', {}, async (_uri, ctx) => {
    try {
      return JSON.stringify(await ctx.listRoots());
    } catch {
      return 'swallowed'; // ignored: the channel decided the answer
    }
  });
  const raw: Raw = connectRaw(s);
  opened.push(raw);
  const result = await raw.modern(
    'resources/read',
    { uri: 'test://roots' },
    {
      'io.modelcontextprotocol/clientCapabilities': { roots: {} },
    },
  );
  expect(result).toEqual({
    resultType: 'input_required',
    inputRequests: INPUT_REQUIRED.inputRequests,
    _meta: { 'io.modelcontextprotocol/serverInfo': { name: 's', version: '1' } },
  });
  expect(calls).toEqual(['roots/list']);
});

test('a legacy request never touches the modern channel: roots/list goes to the client', async () => {
  const calls: string[] = [];
  const s = new McpServer({ name: 's', version: '1' }, { onerror: undefined });
  s.modernChannel = standIn(calls);
  s.resource('roots', 'test://roots', {}, async (_uri, ctx) => JSON.stringify(await ctx.listRoots()));
  const legacy: Connected = await connect(s, { capabilities: { roots: {} } });
  opened.push(legacy);
  legacy.client.setRequestHandler('roots/list', () => ({ roots: [{ uri: 'file:///x', name: 'x' }] }));
  const result = await legacy.client.request('resources/read', { uri: 'test://roots' });
  expect(result).toEqual({
    contents: [{ uri: 'test://roots', text: JSON.stringify({ roots: [{ uri: 'file:///x', name: 'x' }] }) }],
  });
  expect(calls).toEqual([]);
});
