/**
 * The scenario driver the runtime matrix relies on, run here on Node 20 against the same smoke
 * server (from dist), and against servers that get each step wrong: a driver that cannot fail would
 * make every runtime look green.
 */
import { describe, expect, test } from 'vitest';
import { serveHttp } from 'keel-mcp/node';
import { McpServer } from 'keel-mcp/server';
import { useProcessGuard } from '../helpers/guard.js';
import { loadRuntimeModule, type DriveModule, type SmokeAppModule } from './runtime-modules.js';

useProcessGuard();

const { driveSmoke, STEPS } = await loadRuntimeModule<DriveModule>('lib/drive.mjs');
const { createSmokeServer } = await loadRuntimeModule<SmokeAppModule>('server/app.mjs');

const NO_ARGS = { type: 'object', properties: {} } as const;
const TAG = { type: 'object', properties: { tag: { type: 'string' } }, required: ['tag'] } as const;

// Same tool names, each one wrong: too little progress, no elicitation, aborts never recorded, a
// template that drops its query variable.
function wrongServer(): McpServer {
  const server = new McpServer({ name: 'keel-runtime-smoke-wrong', version: '1.0.0' });
  server.tool('echo', { description: 'wrong', input: NO_ARGS }, () => 'wrong: hi');
  server.tool('count', { description: 'wrong', input: NO_ARGS }, async (_args, ctx) => {
    await ctx.progress(1, 3);
    await ctx.progress(2, 3);
    return 'counted 3';
  });
  server.tool('ask', { description: 'wrong', input: NO_ARGS }, () => 'hello keel');
  server.tool('wait', { description: 'wrong', input: TAG }, async (_args, ctx) => {
    await ctx.progress(0, 1);
    return new Promise<string>((_resolve, reject) =>
      ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason as Error)),
    );
  });
  server.tool('was_aborted', { description: 'wrong', input: TAG }, () => 'not aborted');
  server.resourceTemplate('item', 'smoke://items/{id}{?lang}', {}, (_uri, { id }) => `item ${String(id)}`);
  return server;
}

async function drive(server: McpServer, sessions: boolean, abortPollTries?: number) {
  // The smoke server's McpServer comes from dist; serveHttp from src serves any Connectable.
  const serving = await serveHttp(server, { port: 0, sessions: sessions ? undefined : false });
  try {
    return await driveSmoke(serving.url, { sessions, ...(abortPollTries ? { abortPollTries } : {}) });
  } finally {
    await serving.close({ deadlineMs: 2_000 });
  }
}

describe('driveSmoke', () => {
  test('the smoke server with sessions passes every step, in order', async () => {
    const results = await drive(createSmokeServer('node-test').server, true);
    expect(results.map((r) => r.step)).toEqual(STEPS);
    expect(results.filter((r) => r.ok !== true)).toEqual([]);
    expect(results.find((r) => r.step === 'disconnect')?.detail).toBe('server saw CancelledByPeerError');
  });

  test('without sessions the two session steps are n/a and the rest pass', async () => {
    const results = await drive(createSmokeServer('node-test').server, false);
    expect(results.filter((r) => r.ok === 'n/a').map((r) => r.step)).toEqual(['elicitation', 'session-end']);
    expect(results.filter((r) => r.ok === false)).toEqual([]);
  });

  test('a server that gets the steps wrong fails exactly those steps', async () => {
    const results = await drive(wrongServer(), true, 3);
    expect(results.filter((r) => r.ok === false).map((r) => r.step)).toEqual([
      'progress',
      'elicitation',
      'disconnect',
      'session-end',
      'modern',
      'template',
    ]);
    expect(results.find((r) => r.step === 'progress')?.detail).toContain('progress 1,2');
    expect(results.find((r) => r.step === 'template')?.detail).toContain('read item a b');
    expect(results.find((r) => r.step === 'disconnect')?.detail).toContain(
      'never saw wait "disconnect" aborted',
    );
  });

  test('nothing listening: every step fails with a reason, none hangs', async () => {
    const serving = await serveHttp(new McpServer({ name: 'gone', version: '1.0.0' }), { port: 0 });
    const url = serving.url;
    await serving.close({ deadlineMs: 2_000 });
    const results = await driveSmoke(url, { abortPollTries: 1 });
    expect(results.map((r) => r.step)).toEqual(STEPS);
    expect(results.filter((r) => r.ok !== false)).toEqual([]);
    expect(results.every((r) => r.detail.length > 0)).toBe(true);
  });
});
